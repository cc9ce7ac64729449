# Remote simdevice devices over Open MPI (issue 36): included by Makefile.
#   build/lib/libomptarget.rtl.simdevice-mpi.so  the plugin stub (links no
#       MPI; loads the rest only when the environment names remote devices)
#   build/lib/simdevice/libsimdevice-mpi.so      the host side (libmpi)
#   build/lib/simdevice/simdevice-mpi-server     a device rank (libmpi and
#       the local simdevice plugin, which does the device's work)
# Built when Open MPI's compiler wrapper (mpicc) is found; else make says so
# in one line and the rest builds as before.
MPICC ?= mpicc
MPI_HAVE := $(shell command -v $(MPICC) 2>/dev/null)
MPI_PLUGIN := $(B)/lib/libomptarget.rtl.simdevice-mpi.so
MPI_IMPL   := $(B)/lib/simdevice/libsimdevice-mpi.so
MPI_SERVER := $(B)/lib/simdevice/simdevice-mpi-server
MPI_STUB_OBJ := $(B)/obj/simdevice/mpi/plugin.o $(B)/obj/simdevice/mpi/topology.o
MPI_IMPL_OBJ := $(addprefix $(B)/obj/simdevice/mpi/,host.o queues.o link.o wire.o topology.o machine.o) \
  $(B)/obj/simdevice/plugin/elfimage.o
MPI_SERV_OBJ := $(addprefix $(B)/obj/simdevice/mpi/,server.o wire.o machine.o huge_memory.o)

ifneq ($(MPI_HAVE),)
MPI_COMPILE := $(shell $(MPICC) --showme:compile)
MPI_LINK    := $(shell $(MPICC) --showme:link)
$(B)/obj/simdevice/mpi/%.o: CPPFLAGS += $(MPI_COMPILE)

$(MPI_PLUGIN): $(MPI_STUB_OBJ) simdevice/plugin/exports.map
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,--version-script=simdevice/plugin/exports.map -Wl,--no-undefined \
	  -o $@ $(MPI_STUB_OBJ) -ldl -lpthread

$(MPI_IMPL): $(MPI_IMPL_OBJ) $(COMMON_OBJ) simdevice/mpi/exports.map
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,--version-script=simdevice/mpi/exports.map -Wl,-Bsymbolic -Wl,--no-undefined \
	  -o $@ $(MPI_IMPL_OBJ) $(COMMON_OBJ) $(MPI_LINK) -lelf -ldl -lpthread

$(MPI_SERVER): $(MPI_SERV_OBJ) $(PLUGIN)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $(MPI_SERV_OBJ) -L$(B)/lib -l:libomptarget.rtl.simdevice.so \
	  -Wl,-rpath,'$$ORIGIN/..' $(MPI_LINK) -lpthread

MPI_TARGETS := $(MPI_PLUGIN) $(MPI_IMPL) $(MPI_SERVER)
ALL += $(MPI_TARGETS)
all: $(MPI_TARGETS)
-include $(MPI_STUB_OBJ:.o=.d) $(MPI_IMPL_OBJ:.o=.d) $(MPI_SERV_OBJ:.o=.d)

# The server finds the local plugin in ../ (its rpath), as in build/lib.
install-mpi: all
	install -d $(DESTDIR)$(PREFIX)/lib/simdevice
	install -m 755 $(MPI_PLUGIN) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(MPI_IMPL) $(MPI_SERVER) $(DESTDIR)$(PREFIX)/lib/simdevice/
install: install-mpi
uninstall-mpi:
	rm -f $(DESTDIR)$(PREFIX)/lib/$(notdir $(MPI_PLUGIN)) \
	  $(addprefix $(DESTDIR)$(PREFIX)/lib/simdevice/,$(notdir $(MPI_IMPL) $(MPI_SERVER)))
uninstall: uninstall-mpi
.PHONY: install-mpi uninstall-mpi
else
$(info simdevice-mpi: $(MPICC) not found (Open MPI: openmpi-bin, libopenmpi-dev); remote devices not built)
endif
