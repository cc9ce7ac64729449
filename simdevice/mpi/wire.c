/*
 * wire.c - polling waits and chunked copies over MPI (wire_wait.h), shared
 * by the host plugin and the device server.
 */
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "cpu_load.h"
#include "wire.h"
#include "wire_wait.h"

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000ll + t.tv_nsec;
}

/* Polls `req` for spin_ns (yielding the CPU every 64 polls),
 * then sleeps between polls: 10 us growing to 100 us, after 20 ms of
 * waiting to 1 ms (an idle device rank costs next to no CPU). `check` as
 * for wire_wait, about every 100 ms once sleeping. */
static int wait_polling(MPI_Request *req, MPI_Status *st, int64_t spin_ns,
                        int (*check)(void *ctx), void *ctx) {
  MPI_Status local;
  if (st == NULL)
    st = &local;
  int64_t start = now_ns(), next_check = start + 100000000ll;
  long sleep_ns = 10000;
  for (int spin = 0;; spin++) {
    int done = 0;
    MPI_Test(req, &done, st);
    if (done)
      return 0;
    int64_t waited = now_ns() - start;
    if (waited < spin_ns) {
      if ((spin & 63) == 63)
        sched_yield();
      continue;
    }
    struct timespec ts = {0, sleep_ns};
    nanosleep(&ts, NULL);
    if (sleep_ns < (waited < 20000000 ? 100000 : 1000000))
      sleep_ns *= 2;
    if (check != NULL && now_ns() >= next_check) {
      next_check = now_ns() + 100000000ll;
      if (check(ctx)) {
        MPI_Cancel(req);
        MPI_Request_free(req);
        return -1;
      }
    }
  }
}

int wire_wait(MPI_Request *req, MPI_Status *st, int (*check)(void *ctx),
              void *ctx) {
  /* A reply, or the host's next request: it usually comes within 2 ms, so
   * the wait polls that long first (as Open MPI's own blocking calls
   * poll), giving the CPU to whatever else is runnable every 64 polls.
   * When the machine has more runnable threads than CPUs
   * (common/cpu_load.h), a polling rank or host thread takes the CPU from
   * the very process it waits for (an oversubscribed 2-core machine ran
   * nowait_many.c 60 times slower with 2 ms): there it polls 100 us, which
   * still catches the answer to a copy or an empty kernel without a sleep
   * (a sleep of 10 us takes 60 us with the kernel's default timer slack:
   * an empty target region took 152 us remote against 8 us local on the
   * loaded 2-core VM when such waits slept at once). Not yielding at every
   * poll: a yield to another program's thread costs a time slice (4 MiB
   * copies took 1-30 ms instead of 0.6 ms). */
  int over = cpu_load_oversubscribed();
  return wait_polling(req, st, over ? 100000 : 2000000, check, ctx);
}

/* Bytes known to be on their way (the data after a request or a reply
 * header): the sender is sending now, and Open MPI moves a large message
 * only as both ends progress it (each poll), so the wait polls for up to
 * 20 ms (16 MiB at 1 GB/s) whatever the load, yielding every 64 polls,
 * before it sleeps (a sender stopped mid-message: the bytes then crawl,
 * the check still runs). A wait that slept between polls moved 1 MiB at
 * 0.4x Open MPI's own rate on the loaded VM. */
static int wait_in_flight(MPI_Request *req, int (*check)(void *ctx),
                          void *ctx) {
  return wait_polling(req, NULL, 20000000, check, ctx);
}

int wire_recv_wait(void *buf, size_t len, int src, int tag, MPI_Comm comm,
                   MPI_Status *st) {
  MPI_Request req;
  MPI_Irecv(buf, (int)len, MPI_BYTE, src, tag, comm, &req);
  return wire_wait(&req, st, NULL, NULL);
}

int wire_send_bytes(const void *buf, size_t len, int dst, int tag,
                    MPI_Comm comm) {
  for (size_t done = 0; done < len;) {
    size_t n = len - done > WIRE_CHUNK ? WIRE_CHUNK : len - done;
    MPI_Send((const char *)buf + done, (int)n, MPI_BYTE, dst, tag, comm);
    done += n;
  }
  return 0;
}

int wire_recv_bytes_checked(void *buf, size_t len, int src, int tag,
                            MPI_Comm comm, int (*check)(void *ctx),
                            void *ctx) {
  char *scratch = NULL;
  for (size_t done = 0; done < len;) {
    size_t n = len - done > WIRE_CHUNK ? WIRE_CHUNK : len - done;
    char *to = buf != NULL ? (char *)buf + done : NULL;
    if (to == NULL) {
      if (scratch == NULL && (scratch = malloc(WIRE_CHUNK)) == NULL)
        return -1;
      to = scratch;
    }
    MPI_Request req;
    MPI_Irecv(to, (int)n, MPI_BYTE, src, tag, comm, &req);
    if (wait_in_flight(&req, check, ctx) != 0) {
      free(scratch);
      return -1;
    }
    done += n;
  }
  free(scratch);
  return 0;
}
