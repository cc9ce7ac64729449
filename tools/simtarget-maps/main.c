/*
 * main.c - simtarget-maps: the commands, the usage text, and `run`.
 */
#include "tool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char usage[] =
    "NAME\n"
    "    simtarget-maps - check the map-type codegen of OpenMP target "
    "constructs\n"
    "\n"
    "SYNOPSIS\n"
    "    simtarget-maps decode TYPE...\n"
    "    simtarget-maps check [--codegen-only] TRACE...\n"
    "    simtarget-maps diff [--summary] [--ignore-entry] [--json] TRACE_A "
    "TRACE_B\n"
    "    simtarget-maps normalize TRACE\n"
    "    simtarget-maps run [--keep-going] [--trace FILE] -- PROGRAM [ARGS...]\n"
    "    simtarget-maps matrix [--clang 13,14,...] [--toolchains FILE] "
    "[--lib DIR]\n"
    "                          [--keep] PROG.c\n"
    "    simtarget-maps --help\n"
    "\n"
    "DESCRIPTION\n"
    "    TRACE files are written by simtarget's libomptarget when the program "
    "runs\n"
    "    with SIMTARGET_TRACE=FILE: one JSON object per line, in the schema\n"
    "    trace.schema.json (version 2; a normalised trace, without raw\n"
    "    addresses, is read too). Every line read is validated: each one that\n"
    "    breaks the schema is named as FILE:LINE: with the field, and the\n"
    "    command exits 2; so does an empty trace.\n"
    "\n"
    "    decode     print the bits of a map type (decimal or 0x hex) and what "
    "they\n"
    "               mean; MEMBER_OF is shown as the parent's 0-based index.\n"
    "    check      check every construct against the map rules; prints each\n"
    "               violation as LOCATION: ENTRY (construct N, KIND, trace "
    "line L):\n"
    "               argument I `EXPR`: [RULE] explanation (offsets inside a "
    "parent\n"
    "               relative to the parent). Exit status 1 when a rule is "
    "broken.\n"
    "               Codegen rules: member-order, member-inside, member-param,\n"
    "               ptr-and-obj, param-order, size, literal-size, "
    "attach-size,\n"
    "               attach-pairs, attach-storage, overlap, unknown-bits,\n"
    "               delete-on-exit, implicit. Program rules (left out by\n"
    "               --codegen-only): zero-size, explicit-extension, "
    "refcount-once,\n"
    "               present.\n"
    "    diff       align the constructs of two traces of one program by "
    "source\n"
    "               location and occurrence, their entries by map expression\n"
    "               (ATTACH apart, mapper components under their argument), "
    "and\n"
    "               print one line per entry that differs: decoded bits "
    "(+added\n"
    "               -removed), MEMBER_OF as the parent's expression, size and\n"
    "               addresses by object (objects matched across the traces), "
    "or\n"
    "               `only in A/B`. --summary: one line per construct;\n"
    "               --ignore-entry: not the entry point (__tgt_target_mapper "
    "vs\n"
    "               __tgt_target_kernel); --json for machines. Reads only the\n"
    "               call, mapper and result lines. Exit status 1 when they "
    "differ.\n"
    "    normalize  print the trace without raw addresses and directories, "
    "for\n"
    "               golden files.\n"
    "    run        run PROGRAM with the trace on (a temporary file, or "
    "--trace\n"
    "               FILE) and print the check's verdict. --keep-going sets\n"
    "               SIMTARGET_KEEP_GOING=1: a failed construct is reported "
    "and\n"
    "               runs on the host, so one run yields every diagnosis. Exit\n"
    "               status: the program's when it failed, else 1 when a rule "
    "is\n"
    "               broken, else 0.\n"
    "    matrix     compile PROG.c (or .cpp) with each clang (-g -O1), run it "
    "on\n"
    "               simtarget and on that clang's LLVM runtime where "
    "installed,\n"
    "               and print one line per clang: both verdicts (with the "
    "cause),\n"
    "               the rules its trace breaks, and its diff against the "
    "previous\n"
    "               clang. Clangs: --clang, else TOOLCHAINS_USABLE of the\n"
    "               toolchains file (--toolchains, $SIMTARGET_TOOLCHAINS; the\n"
    "               build/toolchains/env.sh of tests/toolchains.sh), else "
    "every\n"
    "               clang-N in PATH. simtarget's libraries: --lib, else ../lib\n"
    "               beside this program. --keep keeps the binaries and "
    "traces.\n"
    "\n"
    "    The program must find simtarget's libomptarget.so (LD_LIBRARY_PATH).\n";

static int cmd_run(int argc, char **argv) {
  bool keep_going = false;
  const char *trace_path = NULL;
  int i = 0;
  for (; i < argc && strcmp(argv[i], "--"); i++) {
    if (!strcmp(argv[i], "--keep-going"))
      keep_going = true;
    else if (!strcmp(argv[i], "--trace") && i + 1 < argc)
      trace_path = argv[++i];
    else {
      fprintf(stderr, "simtarget-maps run: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  if (i + 1 >= argc) {
    fprintf(stderr, "simtarget-maps run: give the program after --\n");
    return 2;
  }
  char tmp[] = "/tmp/simtarget-maps-XXXXXX";
  if (!trace_path) {
    int fd = mkstemp(tmp);
    if (fd < 0) {
      fprintf(stderr, "simtarget-maps run: cannot create a temporary file: "
                      "%s\n",
              strerror(errno));
      return 2;
    }
    close(fd);
    trace_path = tmp;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "simtarget-maps run: fork: %s\n", strerror(errno));
    return 2;
  }
  if (pid == 0) {
    setenv("SIMTARGET_TRACE", trace_path, 1);
    if (keep_going)
      setenv("SIMTARGET_KEEP_GOING", "1", 1);
    execvp(argv[i + 1], argv + i + 1);
    fprintf(stderr, "simtarget-maps run: cannot run %s: %s\n", argv[i + 1],
            strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  int prog_rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  struct trace t;
  int rc = prog_rc ? prog_rc : 2; /* a trace that cannot be read, or none */
  if (trace_load(trace_path, &t) == 0) {
    int v = check_trace(&t, false, stdout);
    printf("simtarget-maps: %s: exit status %d, %zu constructs, %d "
           "violation%s\n",
           argv[i + 1], prog_rc, t.num_constructs, v, v == 1 ? "" : "s");
    rc = prog_rc ? prog_rc : v ? 1 : 0;
    trace_free(&t);
  }
  if (trace_path == tmp)
    unlink(tmp);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
      !strcmp(argv[1], "help")) {
    fputs(usage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  static const struct {
    const char *name;
    int (*run)(int, char **);
  } commands[] = {{"decode", cmd_decode},       {"check", cmd_check},
                  {"diff", cmd_diff},           {"normalize", cmd_normalize},
                  {"run", cmd_run},             {"matrix", cmd_matrix}};
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (!strcmp(argv[1], commands[i].name))
      return commands[i].run(argc - 2, argv + 2);
  fprintf(stderr, "simtarget-maps: unknown command `%s` (see "
                  "simtarget-maps --help)\n",
          argv[1]);
  return 2;
}
