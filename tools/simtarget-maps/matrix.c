/*
 * matrix.c - `simtarget-maps matrix PROG.c [--clang 13,14,...]`: the
 * driver every compiler team writes by hand. PROG is compiled with each
 * clang (-g -O1), run on simtarget with the trace on, and on that clang's
 * own LLVM offload runtime where one is installed; one line per clang:
 *
 *   clang-N  simtarget: VERDICT [(cause)]  llvm: VERDICT  rules: R xK, ...
 *            vs clang-M: D differences in C constructs
 *
 * The compilers and their flags come from a toolchains file of lines
 * TC_CC_N=..., TC_FLAGS_N="...", TC_HOSTLIB_N=..., TC_RTDIR_N=...,
 * TOOLCHAINS_USABLE="..." (tests/toolchains.sh writes one; --toolchains FILE
 * or $SIMTARGET_TOOLCHAINS), else clang-N from PATH with
 * -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu and LLVM's runtime from
 * /usr/lib/llvm-N/lib. simtarget's libomptarget.so comes from --lib DIR, by
 * default ../lib beside this tool.
 */
#include "tool.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_CLANGS 32

struct toolchain {
  int version;
  char cc[PATH_MAX], flags[2048], hostlib[PATH_MAX], rtdir[PATH_MAX];
};

struct matrix {
  const char *prog, *lib, *toolchains_file;
  char dir[64];
  bool cxx;
  struct toolchain tc[MAX_CLANGS];
  size_t n;
};

/* A value of the toolchains file ("KEY=value" or KEY="value"), or "". */
static void env_value(const char *file, const char *key, char *out,
                      size_t len) {
  out[0] = 0;
  FILE *f = file ? fopen(file, "r") : NULL;
  if (!f)
    return;
  char line[4096];
  size_t klen = strlen(key);
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, key, klen) || line[klen] != '=')
      continue;
    char *v = line + klen + 1;
    v[strcspn(v, "\n")] = 0;
    size_t vl = strlen(v);
    if (vl >= 2 && v[0] == '"' && v[vl - 1] == '"')
      v[vl - 1] = 0, v++;
    snprintf(out, len, "%s", v);
    break;
  }
  fclose(f);
}

static bool is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* clang-N: from the toolchains file, else from PATH. */
static int add_toolchain(struct matrix *m, int v) {
  if (m->n == MAX_CLANGS)
    return -1;
  struct toolchain *t = &m->tc[m->n];
  char key[32];
  memset(t, 0, sizeof *t);
  t->version = v;
  snprintf(key, sizeof key, "TC_CC_%d", v);
  env_value(m->toolchains_file, key, t->cc, sizeof t->cc);
  snprintf(key, sizeof key, "TC_FLAGS_%d", v);
  env_value(m->toolchains_file, key, t->flags, sizeof t->flags);
  snprintf(key, sizeof key, "TC_HOSTLIB_%d", v);
  env_value(m->toolchains_file, key, t->hostlib, sizeof t->hostlib);
  snprintf(key, sizeof key, "TC_RTDIR_%d", v);
  env_value(m->toolchains_file, key, t->rtdir, sizeof t->rtdir);
  if (!t->cc[0]) {
    snprintf(t->cc, sizeof t->cc, "clang-%d", v);
    snprintf(t->flags, sizeof t->flags,
             "-fopenmp -fopenmp-targets=x86_64-pc-linux-gnu");
    snprintf(t->rtdir, sizeof t->rtdir, "/usr/lib/llvm-%d/lib", v);
  }
  if (m->cxx) { /* clang-N -> clang++-N */
    char *p = strstr(t->cc, "clang-");
    if (p) {
      char cxx[PATH_MAX];
      snprintf(cxx, sizeof cxx, "%.*sclang++-%s", (int)(p - t->cc), t->cc,
               p + 6);
      snprintf(t->cc, sizeof t->cc, "%s", cxx);
    }
  }
  /* LLVM's runtime of that very version, when installed */
  char needle[32], rt[PATH_MAX + 32];
  snprintf(needle, sizeof needle, "llvm-%d/", v);
  snprintf(rt, sizeof rt, "%s/libomptarget.so", t->rtdir);
  if (!strstr(t->rtdir, needle) || !is_file(rt))
    t->rtdir[0] = 0;
  m->n++;
  return 0;
}

static int run_sh(const char *cmd) {
  int st = system(cmd);
  if (st == -1)
    return -1;
  if (WIFEXITED(st))
    return WEXITSTATUS(st);
  return 128 + WTERMSIG(st);
}

/* "PASS", "exit 1 (cause)", "signal 11" from a run's status and stderr. */
static void verdict(const char *dir, const char *what, int rc, char *out,
                    size_t len) {
  char path[PATH_MAX], line[1024], cause[200] = "";
  snprintf(path, sizeof path, "%s/%s.err", dir, what);
  FILE *f = fopen(path, "r");
  while (f && fgets(line, sizeof line, f)) {
    char *c = strstr(line, "cause: ");
    line[strcspn(line, "\n")] = 0;
    /* the cause's last clause names the variable; the first line else */
    char *last = c ? strrchr(c, ';') : NULL;
    if (c || (!cause[0] && line[0]))
      snprintf(cause, sizeof cause, "%.110s",
               last ? last + 2 : c ? c + 7 : line);
    if (c)
      break;
  }
  if (f)
    fclose(f);
  snprintf(path, sizeof path, "%s/%s.out", dir, what);
  bool pass = false;
  f = fopen(path, "r");
  while (f && fgets(line, sizeof line, f))
    pass = pass || !strcmp(line, "PASS\n");
  if (f)
    fclose(f);
  if (rc == 0)
    snprintf(out, len, "%s", pass ? "PASS" : "exit 0");
  else if (rc == 124)
    snprintf(out, len, "timeout");
  else if (rc > 128)
    snprintf(out, len, "signal %d%s%s%s", rc - 128, cause[0] ? " (" : "",
             cause, cause[0] ? ")" : "");
  else
    snprintf(out, len, "exit %d%s%s%s", rc, cause[0] ? " (" : "", cause,
             cause[0] ? ")" : "");
}

/* The rules a trace breaks: "member-inside x1, attach-storage x2". */
static void rule_hits(const struct trace *t, char *out, size_t len) {
  char *buf = NULL;
  size_t size = 0;
  FILE *mem = open_memstream(&buf, &size);
  out[0] = 0;
  if (!mem)
    return;
  check_trace(t, false, mem);
  fclose(mem);
  char names[16][40];
  int counts[16], n = 0;
  for (char *p = buf; p && (p = strstr(p, ": [")); p++) {
    size_t l = strcspn(p + 3, "]");
    if (l >= 40)
      continue;
    int i = 0;
    while (i < n && (strlen(names[i]) != l || strncmp(names[i], p + 3, l)))
      i++;
    if (i == n && n < 16)
      snprintf(names[n], sizeof names[n], "%.*s", (int)l, p + 3),
          counts[n++] = 0;
    if (i < n)
      counts[i]++;
  }
  for (int i = 0; i < n; i++)
    snprintf(out + strlen(out), len - strlen(out), "%s%.39s x%d", i ? ", " : "",
             names[i], counts[i]);
  if (!n)
    snprintf(out, len, "none");
  free(buf);
}

/* Compile and run with clang-N; prints its line; keeps its trace in t. */
static void one_clang(struct matrix *m, size_t k, struct trace *t,
                      bool *have, const struct trace *prev, int prev_v) {
  struct toolchain *tc = &m->tc[k];
  char cmd[8192], bin[96], sim[200] = "", llvm[200] = "not installed";
  char rules[400] = "-", vs[200] = "";
  int v = tc->version;
  snprintf(bin, sizeof bin, "%s/prog.%d", m->dir, v);
  snprintf(cmd, sizeof cmd, "%s %s -g -O1 '%s' -o '%s' %s >'%s.cc.err' 2>&1",
           tc->cc, tc->flags, m->prog, bin, m->cxx ? "-lstdc++" : "", bin);
  *have = false;
  if (run_sh(cmd) != 0) {
    char err[PATH_MAX + 16], line[300] = "";
    snprintf(err, sizeof err, "%s.cc.err", bin);
    FILE *f = fopen(err, "r");
    while (f && fgets(line, sizeof line, f) && !strstr(line, "error") &&
           !strstr(line, "not found"))
      line[0] = 0;
    if (f)
      fclose(f);
    line[strcspn(line, "\n")] = 0;
    printf("clang-%-3d does not compile: %s\n", v, line[0] ? line : tc->cc);
    return;
  }
  snprintf(cmd, sizeof cmd,
           "cd '%s' && SIMTARGET_TRACE='%s.jsonl' LD_LIBRARY_PATH='%s%s%s' "
           "OMP_TARGET_OFFLOAD=mandatory timeout 60 '%s' >sim.%d.out "
           "2>sim.%d.err",
           m->dir, bin, m->lib, tc->hostlib[0] ? ":" : "", tc->hostlib, bin,
           v, v);
  char what[32];
  snprintf(what, sizeof what, "sim.%d", v);
  verdict(m->dir, what, run_sh(cmd), sim, sizeof sim);
  if (tc->rtdir[0]) {
    snprintf(cmd, sizeof cmd,
             "cd '%s' && LD_LIBRARY_PATH='%s' OMP_TARGET_OFFLOAD=mandatory "
             "timeout 60 '%s' >llvm.%d.out 2>llvm.%d.err",
             m->dir, tc->rtdir, bin, v, v);
    snprintf(what, sizeof what, "llvm.%d", v);
    verdict(m->dir, what, run_sh(cmd), llvm, sizeof llvm);
  }
  snprintf(cmd, sizeof cmd, "%s.jsonl", bin);
  if (trace_load(cmd, t) == 0) {
    *have = true;
    rule_hits(t, rules, sizeof rules);
  }
  if (*have && prev) {
    size_t c = 0;
    int d = diff_count(prev, t, &c);
    snprintf(vs, sizeof vs, "  vs clang-%d: %d difference%s in %zu "
             "construct%s", prev_v, d, d == 1 ? "" : "s", c,
             c == 1 ? "" : "s");
  }
  printf("clang-%-3d simtarget: %s  llvm: %s  rules: %s%s\n", v, sim, llvm,
         rules, vs);
  fflush(stdout);
}

/* The clangs: --clang 13,14 / the toolchains file's usable ones / every
 * clang-N in PATH. */
static int choose_clangs(struct matrix *m, const char *list) {
  char usable[512];
  env_value(m->toolchains_file, "TOOLCHAINS_USABLE", usable, sizeof usable);
  if (list || usable[0]) {
    char buf[512];
    snprintf(buf, sizeof buf, "%s", list ? list : usable);
    for (char *tok = strtok(buf, ", "); tok; tok = strtok(NULL, ", ")) {
      char *end;
      long v = strtol(tok, &end, 10);
      if (*end || v < 1 || v > 99 || add_toolchain(m, (int)v) != 0) {
        fprintf(stderr, "simtarget-maps matrix: `%s` is not a clang "
                        "version\n", tok);
        return -1;
      }
    }
    return 0;
  }
  for (int v = 10; v < 40; v++) {
    char cmd[64];
    snprintf(cmd, sizeof cmd, "command -v clang-%d >/dev/null 2>&1", v);
    if (run_sh(cmd) == 0 && add_toolchain(m, v) != 0)
      return -1;
  }
  return 0;
}

/* simtarget's lib/ beside this tool's bin/. */
static void default_lib(char *out, size_t len) {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  out[0] = 0;
  if (n <= 0)
    return;
  exe[n] = 0;
  char *slash = strrchr(exe, '/');
  if (slash)
    *slash = 0;
  snprintf(out, len, "%.4000s/../lib", exe);
}

static bool quotable(const char *s) { return s && !strchr(s, '\''); }

/* The options; 0, or 2 after saying what is wrong. */
static int matrix_args(struct matrix *m, int argc, char **argv,
                       const char **list, bool *keep) {
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--clang") && i + 1 < argc)
      *list = argv[++i];
    else if (!strcmp(argv[i], "--toolchains") && i + 1 < argc)
      m->toolchains_file = argv[++i];
    else if (!strcmp(argv[i], "--lib") && i + 1 < argc)
      m->lib = argv[++i];
    else if (!strcmp(argv[i], "--keep"))
      *keep = true;
    else if (argv[i][0] != '-' && !m->prog)
      m->prog = argv[i];
    else {
      fprintf(stderr, "simtarget-maps matrix: unknown argument %s\n",
              argv[i]);
      return 2;
    }
  }
  return 0;
}

/* Each clang in turn, diffed against the last one that left a trace. */
static void run_all(struct matrix *m) {
  struct trace last, cur;
  bool have_last = false;
  int last_v = -1;
  for (size_t k = 0; k < m->n; k++) {
    bool have = false;
    one_clang(m, k, &cur, &have, have_last ? &last : NULL, last_v);
    if (!have)
      continue;
    if (have_last)
      trace_free(&last);
    last = cur;
    have_last = true;
    last_v = m->tc[k].version;
  }
  if (have_last)
    trace_free(&last);
}

int cmd_matrix(int argc, char **argv) {
  struct matrix m = {0};
  const char *list = NULL;
  bool keep = false;
  char lib[PATH_MAX], prog[PATH_MAX];
  default_lib(lib, sizeof lib);
  m.lib = lib;
  m.toolchains_file = getenv("SIMTARGET_TOOLCHAINS");
  if (matrix_args(&m, argc, argv, &list, &keep) != 0)
    return 2;
  if (!m.prog || !realpath(m.prog, prog) || !quotable(prog) ||
      !quotable(m.lib)) {
    fprintf(stderr, "simtarget-maps matrix: give a C or C++ source file "
                    "(PROG.c)%s%s\n", m.prog ? ": " : "",
            m.prog ? strerror(errno) : "");
    return 2;
  }
  m.prog = prog;
  const char *ext = strrchr(prog, '.');
  m.cxx = ext && (!strcmp(ext, ".cpp") || !strcmp(ext, ".cc") ||
                  !strcmp(ext, ".cxx") || !strcmp(ext, ".C"));
  if (choose_clangs(&m, list) != 0)
    return 2;
  if (!m.n) {
    fprintf(stderr, "simtarget-maps matrix: no clang found (--clang, "
                    "--toolchains)\n");
    return 2;
  }
  snprintf(m.dir, sizeof m.dir, "/tmp/simtarget-matrix-XXXXXX");
  if (!mkdtemp(m.dir)) {
    fprintf(stderr, "simtarget-maps matrix: mkdtemp: %s\n", strerror(errno));
    return 2;
  }
  run_all(&m);
  char cmd[128];
  if (keep)
    printf("files: %s\n", m.dir);
  else if (snprintf(cmd, sizeof cmd, "rm -rf '%s'", m.dir) > 0)
    run_sh(cmd);
  return 0;
}
