/*
 * check_findings.c - the JSON-lines writer of check_findings.h.
 */
#include "check_findings.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Lines longer than this are cut (the message's end is lost, the line
 * stays valid JSON). */
enum { FINDING_LINE_MAX = 4096 };

struct line {
  char buf[FINDING_LINE_MAX];
  size_t len;
  int overflow;
};

static void put_char(struct line *l, char c) {
  if (l->len + 1 < sizeof l->buf)
    l->buf[l->len++] = c;
  else
    l->overflow = 1;
}

static void put_raw(struct line *l, const char *s) {
  for (; *s; s++)
    put_char(l, *s);
}

/* A JSON string: quotes, backslashes and control characters escaped. */
static void put_string(struct line *l, const char *s) {
  static const char hex[] = "0123456789abcdef";
  put_char(l, '"');
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\') {
      put_char(l, '\\');
      put_char(l, (char)*p);
    } else if (*p < 0x20) {
      put_raw(l, "\\u00");
      put_char(l, hex[*p >> 4]);
      put_char(l, hex[*p & 15]);
    } else {
      put_char(l, (char)*p);
    }
  }
  put_char(l, '"');
}

static void put_field(struct line *l, const char *key, const char *value) {
  if (!value)
    return;
  if (l->len > 1)
    put_char(l, ',');
  put_string(l, key);
  put_char(l, ':');
  put_string(l, value);
}

/* Builds the line; returns 0, or -1 when it does not fit. */
static int format_finding(struct line *l, const struct check_finding *f) {
  put_char(l, '{');
  put_field(l, "check", f->check);
  put_field(l, "rule", f->rule);
  put_field(l, "variable", f->variable);
  put_field(l, "construct", f->construct);
  put_field(l, "kernel", f->kernel);
  put_field(l, "message", f->message);
  put_field(l, "gpu", f->gpu);
  put_field(l, "fix", f->fix);
  put_raw(l, "}\n");
  return l->overflow ? -1 : 0;
}

int check_finding_write(const struct check_finding *f) {
  const char *path = getenv(CHECK_REPORT_ENV);
  if (!path || !*path)
    return 0;
  if (!f || !f->rule) {
    errno = EINVAL;
    return -1;
  }
  struct line *l = calloc(1, sizeof *l);
  if (!l)
    return -1;
  if (format_finding(l, f) != 0) {
    /* Keep the fields that identify the finding, drop the prose. */
    struct check_finding shorter = {f->check, f->rule, f->variable,
                                    f->construct, f->kernel, NULL, NULL, NULL};
    memset(l, 0, sizeof *l);
    if (format_finding(l, &shorter) != 0) {
      free(l);
      errno = ENAMETOOLONG;
      return -1;
    }
  }
  int rc = -1;
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd >= 0) {
    ssize_t n = write(fd, l->buf, l->len);
    int saved = errno;
    close(fd);
    errno = saved;
    if (n == (ssize_t)l->len)
      rc = 1;
    else if (n >= 0)
      errno = EIO;
  }
  free(l);
  return rc;
}
