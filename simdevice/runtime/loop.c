/*
 * loop.c - worksharing loops: static schedules (__kmpc_for_static_init_*,
 * distribute, distribute parallel for), dispatched schedules (dynamic,
 * guided, runtime, ordered: __kmpc_dispatch_*), and `ordered`.
 *
 * Every loop is handled in an iteration-index space 0..trip-1; values are
 * lb + index * st, computed in 64-bit two's complement and truncated to the
 * loop's type by the typed wrappers.
 *
 * Locks: a dispatch slot's `seq`, `done` and parameters are written under
 * the team's `lock`; `next` and `ordered_next` are atomics read and claimed
 * without it. A thread's own dispatch state (rt_member.disp) is private.
 */
#include <sched.h>
#include <stddef.h>

#include "rt_internal.h"

/* libomp's sched_type values. */
enum {
  SCH_STATIC_CHUNKED = 33,
  SCH_STATIC = 34,
  SCH_DYNAMIC_CHUNKED = 35,
  SCH_GUIDED_CHUNKED = 36,
  SCH_RUNTIME = 37,
  SCH_AUTO = 38,
  SCH_TRAPEZOIDAL = 39,
  SCH_STATIC_GREEDY = 40,
  SCH_STATIC_BALANCED = 41,
  SCH_GUIDED_ITERATIVE = 42,
  SCH_GUIDED_ANALYTICAL = 43,
  SCH_STATIC_STEAL = 44,
  SCH_STATIC_BALANCED_CHUNKED = 45,
  SCH_GUIDED_SIMD = 46,
  SCH_RUNTIME_SIMD = 47,
  ORD_LOWER = 64,
  ORD_UPPER = 72,
  DIST_STATIC_CHUNKED = 91,
  DIST_STATIC = 92,
  NOMERGE_LOWER = 160,
  MODIFIER_MASK = (1 << 29) | (1 << 30),
};

/* The unit-step static schedule's functions (balanced_block,
 * unit_step_block, for_static_init), inlined where they are used: in each
 * typed entry point (__kmpc_for_static_init_4, ...) the bounds then stay in
 * registers instead of going through the caller's locals, and the unit-step
 * case is one function. A team of a GPU-shaped league computes two such
 * schedules: 172 -> 109 instructions each with unit_step_block, -> 80
 * inlined (callgrind). */
#define HOT_INLINE static inline __attribute__((always_inline))

/* Reduces a sched_type to one of our four kinds. */
static enum rt_sched_kind sched_kind(int32_t sched, int64_t chunk)
{
  int32_t s = sched & ~MODIFIER_MASK;
  if (s >= NOMERGE_LOWER)
    s -= 128;
  if (s > ORD_LOWER && s < ORD_UPPER)
    s -= 32;
  switch (s) {
  case SCH_STATIC_CHUNKED:
  case SCH_STATIC_BALANCED_CHUNKED:
  case DIST_STATIC_CHUNKED:
    return chunk > 0 ? RT_SCHED_STATIC_CHUNKED : RT_SCHED_STATIC;
  case SCH_DYNAMIC_CHUNKED:
  case SCH_STATIC_STEAL:
    return RT_SCHED_DYNAMIC;
  case SCH_GUIDED_CHUNKED:
  case SCH_GUIDED_ITERATIVE:
  case SCH_GUIDED_ANALYTICAL:
  case SCH_GUIDED_SIMD:
  case SCH_TRAPEZOIDAL:
    return RT_SCHED_GUIDED;
  default: /* static, greedy, balanced, runtime and auto (OMP_SCHEDULE unset: static) */
    return RT_SCHED_STATIC;
  }
}

/* (The divisions are skipped where they are by 1: a 64-bit division is
 * tens of cycles, and a GPU-shaped league computes two schedules per
 * team, each with a trip count and a block, for hundreds of teams.) */
static uint64_t trip_count(int64_t lb, int64_t ub, int64_t st, int is_signed)
{
  if (st > 0) {
    if (is_signed ? lb > ub : (uint64_t)lb > (uint64_t)ub)
      return 0;
    if (st == 1)
      return (uint64_t)ub - (uint64_t)lb + 1;
    return ((uint64_t)ub - (uint64_t)lb) / (uint64_t)st + 1;
  }
  if (st < 0) {
    if (is_signed ? lb < ub : (uint64_t)lb < (uint64_t)ub)
      return 0;
    return ((uint64_t)lb - (uint64_t)ub) / (uint64_t)(-(uint64_t)st) + 1;
  }
  rt_error("worksharing loop with step 0: no iterations are run");
  return 0;
}

static int64_t iter_value(int64_t lb, uint64_t index, int64_t st)
{
  return (int64_t)((uint64_t)lb + index * (uint64_t)st);
}

/* The balanced block of `who` among `n`: [*begin, *end). */
HOT_INLINE void balanced_block(uint64_t trip, uint64_t n, uint64_t who, uint64_t *begin,
                               uint64_t *end)
{
  if (n == 1) {
    *begin = 0;
    *end = trip;
    return;
  }
  uint64_t small = trip / n, extra = trip % n;
  *begin = who * small + (who < extra ? who : extra);
  *end = *begin + small + (who < extra ? 1 : 0);
}

/*
 * The static schedule of thread `who` among `n` for the loop *plb..*pub step
 * st: on return *plb..*pub is its first chunk (empty if none), *pstride the
 * distance to its next chunk, *plast whether it runs the last iteration.
 */
static void static_schedule(enum rt_sched_kind kind, uint64_t n, uint64_t who, int32_t *plast,
                            int64_t *plb, int64_t *pub, int64_t *pstride, int64_t st,
                            int64_t chunk, int is_signed)
{
  int64_t lb = *plb, ub = *pub;
  uint64_t trip = trip_count(lb, ub, st, is_signed);
  if (plast)
    *plast = 0;
  if (trip == 0) {
    *pstride = st;
    return;
  }
  if (kind == RT_SCHED_STATIC_CHUNKED) {
    uint64_t span = (uint64_t)chunk * (uint64_t)st;
    *plb = (int64_t)((uint64_t)lb + who * span);
    *pub = (int64_t)((uint64_t)*plb + span - (uint64_t)st);
    *pstride = (int64_t)(span * n);
    if (plast)
      *plast = who == ((trip - 1) / (uint64_t)chunk) % n;
    return;
  }
  uint64_t begin, end;
  balanced_block(trip, n, who, &begin, &end);
  if (begin == end) {
    *plb = iter_value(ub, 1, st); /* one step past the end: empty */
    *pub = ub;
  } else {
    *plb = iter_value(lb, begin, st);
    *pub = iter_value(lb, end - 1, st);
    if (plast)
      *plast = end == trip;
  }
  *pstride = (int64_t)(trip * (uint64_t)st);
}

static int is_distribute(int32_t sched)
{
  int32_t s = sched & ~MODIFIER_MASK;
  return s == DIST_STATIC || s == DIST_STATIC_CHUNKED;
}

static void league_position(struct rt_team *t, uint64_t *n, uint64_t *who)
{
  *n = t->league ? (uint64_t)t->league->nteams : 1;
  *who = t->league ? (uint64_t)t->team_num : 0;
}

/* static_schedule of an unchunked static loop of step 1, the schedule of
 * nearly every `for` and `distribute`: the same bounds, without the
 * general case's kinds, steps and calls. */
HOT_INLINE void unit_step_block(uint64_t n, uint64_t who, int32_t *plast, int64_t *plb,
                                int64_t *pub, int64_t *pstride, int is_signed)
{
  int64_t lb = *plb, ub = *pub;
  if (plast)
    *plast = 0;
  if (is_signed ? lb > ub : (uint64_t)lb > (uint64_t)ub) {
    *pstride = 1;
    return;
  }
  uint64_t trip = (uint64_t)ub - (uint64_t)lb + 1, begin, end;
  *pstride = (int64_t)trip;
  balanced_block(trip, n, who, &begin, &end);
  if (begin == end) {
    *plb = (int64_t)((uint64_t)ub + 1); /* one step past the end: empty */
    return;
  }
  *plb = (int64_t)((uint64_t)lb + begin);
  *pub = (int64_t)((uint64_t)lb + end - 1);
  if (plast)
    *plast = end == trip;
}

HOT_INLINE void for_static_init(int32_t sched, int32_t *plast, int64_t *plb, int64_t *pub,
                                int64_t *pstride, int64_t incr, int64_t chunk, int is_signed)
{
  struct rt_member *m = rt_current();
  uint64_t n = (uint64_t)m->team->nthreads, who = (uint64_t)m->tid;
  if (is_distribute(sched))
    league_position(m->team, &n, &who);
  int32_t s = sched & ~MODIFIER_MASK;
  if (incr == 1 && (s == SCH_STATIC || s == DIST_STATIC)) {
    unit_step_block(n, who, plast, plb, pub, pstride, is_signed);
    return;
  }
  static_schedule(sched_kind(sched, chunk), n, who, plast, plb, pub, pstride, incr, chunk,
                  is_signed);
}

/* distribute parallel for in one call: this team's block of the league's
 * balanced split, then this thread's part of it under `sched`. */
static void dist_for_static_init(int32_t sched, int32_t *plast, int64_t *plb, int64_t *pub,
                                 int64_t *pupper_dist, int64_t *pstride, int64_t incr,
                                 int64_t chunk, int is_signed)
{
  struct rt_member *m = rt_current();
  uint64_t nteams, team;
  league_position(m->team, &nteams, &team);
  int32_t team_last = 0, thread_last = 0;
  int64_t team_stride;
  static_schedule(RT_SCHED_STATIC, nteams, team, &team_last, plb, pub, &team_stride, incr, 0,
                  is_signed);
  *pupper_dist = *pub;
  static_schedule(sched_kind(sched, chunk), (uint64_t)m->team->nthreads, (uint64_t)m->tid,
                  &thread_last, plb, pub, pstride, incr, chunk, is_signed);
  if (plast)
    *plast = team_last && thread_last;
}

static void team_static_init(int32_t *plast, int64_t *plb, int64_t *pub, int64_t *pstride,
                             int64_t incr, int64_t chunk, int is_signed)
{
  struct rt_member *m = rt_current();
  uint64_t n, who;
  league_position(m->team, &n, &who);
  static_schedule(chunk > 0 ? RT_SCHED_STATIC_CHUNKED : RT_SCHED_STATIC, n, who, plast, plb, pub,
                  pstride, incr, chunk, is_signed);
}

/* ------------------------------------------------------------ dispatch */

static void dispatch_init(int32_t sched, int64_t lb, int64_t ub, int64_t st, int64_t chunk,
                          int is_signed)
{
  struct rt_member *m = rt_current();
  struct rt_team *t = m->team;
  int64_t seq = m->dispatch_seq++;
  struct rt_dispatch_slot *s = &t->dispatch[seq % RT_DISPATCH_SLOTS];

  pthread_mutex_lock(&t->lock);
  for (;;) {
    if (s->seq == seq)
      break; /* another thread set it up */
    if (s->seq < 0 || (s->seq < seq && s->done == t->nthreads)) {
      s->seq = seq;
      s->done = 0;
      s->kind = sched_kind(sched, chunk);
      s->trip = trip_count(lb, ub, st, is_signed);
      s->chunk = chunk > 0 ? (uint64_t)chunk : 1;
      s->lb = lb;
      s->st = st;
      atomic_store(&s->next, 0);
      atomic_store(&s->ordered_next, 0);
      break;
    }
    /* The slot still serves a loop some thread has not finished. */
    pthread_cond_wait(&t->cond, &t->lock);
  }
  pthread_mutex_unlock(&t->lock);

  m->disp.slot = s;
  m->disp.static_chunk = 0;
  m->disp.finished = 0;
  m->disp.cur_iter = 0;
  m->disp.ordered_bumped = 0;
}

/* The next chunk [*begin, *end) for this thread; 0 when the loop is done. */
static int claim_chunk(struct rt_member *m, struct rt_dispatch_slot *s, uint64_t *begin,
                       uint64_t *end)
{
  uint64_t n = (uint64_t)m->team->nthreads, tid = (uint64_t)m->tid;
  switch ((enum rt_sched_kind)s->kind) {
  case RT_SCHED_STATIC:
    if (m->disp.static_chunk++ > 0)
      return 0;
    balanced_block(s->trip, n, tid, begin, end);
    return *begin < *end;
  case RT_SCHED_STATIC_CHUNKED: {
    uint64_t k = tid + m->disp.static_chunk++ * n;
    if (k >= (s->trip + s->chunk - 1) / s->chunk)
      return 0;
    *begin = k * s->chunk;
    *end = *begin + s->chunk < s->trip ? *begin + s->chunk : s->trip;
    return 1;
  }
  case RT_SCHED_DYNAMIC:
    *begin = atomic_fetch_add(&s->next, s->chunk);
    if (*begin >= s->trip)
      return 0;
    *end = s->trip - *begin > s->chunk ? *begin + s->chunk : s->trip;
    return 1;
  case RT_SCHED_GUIDED: {
    uint64_t b = atomic_load(&s->next);
    for (;;) {
      if (b >= s->trip)
        return 0;
      uint64_t rem = s->trip - b;
      uint64_t size = rem / (2 * n);
      if (size < s->chunk)
        size = s->chunk;
      if (size > rem)
        size = rem;
      if (atomic_compare_exchange_weak(&s->next, &b, b + size)) {
        *begin = b;
        *end = b + size;
        return 1;
      }
    }
  }
  }
  return 0;
}

static int dispatch_next(int32_t *plast, int64_t *plb, int64_t *pub, int64_t *pst)
{
  struct rt_member *m = rt_current();
  struct rt_dispatch_slot *s = m->disp.slot;
  if (!s || m->disp.finished) {
    rt_error("__kmpc_dispatch_next: no dispatched loop is active on this thread");
    return 0;
  }
  uint64_t begin, end;
  if (!claim_chunk(m, s, &begin, &end)) {
    struct rt_team *t = m->team;
    m->disp.finished = 1;
    pthread_mutex_lock(&t->lock);
    s->done++;
    pthread_cond_broadcast(&t->cond);
    pthread_mutex_unlock(&t->lock);
    return 0;
  }
  *plb = iter_value(s->lb, begin, s->st);
  *pub = iter_value(s->lb, end - 1, s->st);
  if (pst)
    *pst = s->st;
  if (plast)
    *plast = end == s->trip;
  m->disp.cur_iter = begin;
  m->disp.ordered_bumped = 0;
  return 1;
}

static void wait_ordered_turn(struct rt_dispatch_slot *s, uint64_t iter)
{
  while (atomic_load(&s->ordered_next) != iter)
    sched_yield();
}

/* End of one iteration of an ordered loop (emitted per iteration). An
 * iteration that skipped its ordered region still takes its turn. */
static void dispatch_fini(void)
{
  struct rt_member *m = rt_current();
  struct rt_dispatch_slot *s = m->disp.slot;
  if (!s)
    return;
  if (!m->disp.ordered_bumped) {
    wait_ordered_turn(s, m->disp.cur_iter);
    atomic_store(&s->ordered_next, m->disp.cur_iter + 1);
  }
  m->disp.ordered_bumped = 0;
  m->disp.cur_iter++;
}

EXPORT void __kmpc_ordered(UNUSED ident_t *loc, UNUSED int32_t gtid)
{
  struct rt_member *m = rt_current();
  if (m->disp.slot && !m->disp.finished)
    wait_ordered_turn(m->disp.slot, m->disp.cur_iter);
}

EXPORT void __kmpc_end_ordered(UNUSED ident_t *loc, UNUSED int32_t gtid)
{
  struct rt_member *m = rt_current();
  if (m->disp.slot && !m->disp.finished) {
    atomic_store(&m->disp.slot->ordered_next, m->disp.cur_iter + 1);
    m->disp.ordered_bumped = 1;
  }
}

EXPORT void __kmpc_dispatch_deinit(UNUSED ident_t *loc, UNUSED int32_t gtid)
{
  rt_current()->disp.slot = NULL;
}

EXPORT void __kmpc_for_static_fini(UNUSED ident_t *loc, UNUSED int32_t gtid) {}

/* ------------------------------------------------------------ typed entry points */

#define LOOP_ENTRY_POINTS(SUF, T, ST, SIGNED)                                                      \
  EXPORT void __kmpc_for_static_init_##SUF(UNUSED ident_t *loc, UNUSED int32_t gtid,              \
                                           int32_t sched, int32_t *plast, T *plb, T *pub,         \
                                           ST *pstride, ST incr, ST chunk)                        \
  {                                                                                               \
    int64_t lb = (int64_t)*plb, ub = (int64_t)*pub, stride = 0;                                  \
    for_static_init(sched, plast, &lb, &ub, &stride, incr, chunk, SIGNED);                        \
    *plb = (T)lb;                                                                                 \
    *pub = (T)ub;                                                                                 \
    *pstride = (ST)stride;                                                                        \
  }                                                                                               \
  EXPORT void __kmpc_dist_for_static_init_##SUF(UNUSED ident_t *loc, UNUSED int32_t gtid,         \
                                                int32_t sched, int32_t *plast, T *plb, T *pub,    \
                                                T *pupper_dist, ST *pstride, ST incr, ST chunk)   \
  {                                                                                               \
    int64_t lb = (int64_t)*plb, ub = (int64_t)*pub, ud = 0, stride = 0;                          \
    dist_for_static_init(sched, plast, &lb, &ub, &ud, &stride, incr, chunk, SIGNED);              \
    *plb = (T)lb;                                                                                 \
    *pub = (T)ub;                                                                                 \
    *pupper_dist = (T)ud;                                                                         \
    *pstride = (ST)stride;                                                                        \
  }                                                                                               \
  EXPORT void __kmpc_team_static_init_##SUF(UNUSED ident_t *loc, UNUSED int32_t gtid,             \
                                            int32_t *plast, T *plb, T *pub, ST *pstride,          \
                                            ST incr, ST chunk)                                    \
  {                                                                                               \
    int64_t lb = (int64_t)*plb, ub = (int64_t)*pub, stride = 0;                                  \
    team_static_init(plast, &lb, &ub, &stride, incr, chunk, SIGNED);                              \
    *plb = (T)lb;                                                                                 \
    *pub = (T)ub;                                                                                 \
    *pstride = (ST)stride;                                                                        \
  }                                                                                               \
  EXPORT void __kmpc_dispatch_init_##SUF(UNUSED ident_t *loc, UNUSED int32_t gtid, int32_t sched, \
                                         T lb, T ub, ST st, ST chunk)                             \
  {                                                                                               \
    dispatch_init(sched, (int64_t)lb, (int64_t)ub, st, chunk, SIGNED);                            \
  }                                                                                               \
  EXPORT int __kmpc_dispatch_next_##SUF(UNUSED ident_t *loc, UNUSED int32_t gtid, int32_t *plast, \
                                        T *plb, T *pub, ST *pst)                                  \
  {                                                                                               \
    int64_t lb, ub, st;                                                                           \
    if (!dispatch_next(plast, &lb, &ub, &st))                                                     \
      return 0;                                                                                   \
    *plb = (T)lb;                                                                                 \
    *pub = (T)ub;                                                                                 \
    if (pst)                                                                                      \
      *pst = (ST)st;                                                                              \
    return 1;                                                                                     \
  }                                                                                               \
  EXPORT void __kmpc_dispatch_fini_##SUF(UNUSED ident_t *loc, UNUSED int32_t gtid)                \
  {                                                                                               \
    dispatch_fini();                                                                              \
  }

LOOP_ENTRY_POINTS(4, int32_t, int32_t, 1)
LOOP_ENTRY_POINTS(4u, uint32_t, int32_t, 0)
LOOP_ENTRY_POINTS(8, int64_t, int64_t, 1)
LOOP_ENTRY_POINTS(8u, uint64_t, int64_t, 0)
