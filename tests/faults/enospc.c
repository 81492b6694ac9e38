/* A fault-injecting LD_PRELOAD shim: "the disk is full" (or an I/O error) on demand.
 *
 * While the file named by TRAWL_FAULT_FLAG exists, every write to a file whose path starts with
 * TRAWL_FAULT_DIR (and contains TRAWL_FAULT_MATCH, when set) fails with TRAWL_FAULT_ERRNO
 * (ENOSPC by default; EIO, EDQUOT, EROFS, EFBIG by name or number). Writes to other files, to
 * pipes, sockets and terminals go through. Removing the flag file "frees the space".
 * TRAWL_FAULT_AFTER=N lets the first N such writes of each process through (a disk that fills
 * after N writes). TRAWL_FAULT_SHORT=1 first lets half of a write through and returns the short
 * count (what a filling disk does), then fails the rest. Shrinking a file (ftruncate) always works, as it does
 * on a full disk.
 *
 * Build: cc -shared -fPIC -O2 -o enospc.so enospc.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_FDS 65536
static unsigned char shortened[MAX_FDS];
static long passed; /* writes let through under TRAWL_FAULT_AFTER (this process's) */

static int fault_errno(void) {
    const char *e = getenv("TRAWL_FAULT_ERRNO");
    if (e == NULL || *e == '\0' || strcmp(e, "ENOSPC") == 0) return ENOSPC;
    if (strcmp(e, "EIO") == 0) return EIO;
    if (strcmp(e, "EDQUOT") == 0) return EDQUOT;
    if (strcmp(e, "EROFS") == 0) return EROFS;
    if (strcmp(e, "EFBIG") == 0) return EFBIG;
    int n = atoi(e);
    return n > 0 ? n : ENOSPC;
}

/* Should a write to fd fail now? */
static int faulty(int fd) {
    const char *flag = getenv("TRAWL_FAULT_FLAG");
    const char *dir = getenv("TRAWL_FAULT_DIR");
    if (flag == NULL || dir == NULL || fd < 0) return 0;
    int saved = errno;
    struct stat st;
    int on = stat(flag, &st) == 0;
    if (!on) {
        if (fd < MAX_FDS) shortened[fd] = 0;
        errno = saved;
        return 0;
    }
    char link[64], path[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    errno = saved;
    if (n <= 0) return 0;
    path[n] = '\0';
    if (strncmp(path, dir, strlen(dir)) != 0) return 0;
    const char *match = getenv("TRAWL_FAULT_MATCH");
    if (match != NULL && *match != '\0' && strstr(path, match) == NULL) return 0;
    const char *after = getenv("TRAWL_FAULT_AFTER");
    if (after != NULL && passed < atol(after)) {
        passed++;
        return 0;
    }
    return 1;
}

/* Half of a write of count bytes goes through once per fd while the flag is on; 0: fail it. */
static size_t short_part(int fd, size_t count) {
    const char *s = getenv("TRAWL_FAULT_SHORT");
    if (s == NULL || *s != '1' || count < 2 || fd >= MAX_FDS || shortened[fd]) return 0;
    shortened[fd] = 1;
    return count / 2;
}

#define REAL(name) \
    static __typeof__(&name) real_##name = NULL; \
    if (real_##name == NULL) real_##name = (__typeof__(&name))dlsym(RTLD_NEXT, #name)

ssize_t write(int fd, const void *buf, size_t count) {
    REAL(write);
    if (count > 0 && faulty(fd)) {
        size_t part = short_part(fd, count);
        if (part) return real_write(fd, buf, part);
        errno = fault_errno();
        return -1;
    }
    return real_write(fd, buf, count);
}

ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset) {
    REAL(pwrite);
    if (count > 0 && faulty(fd)) {
        size_t part = short_part(fd, count);
        if (part) return real_pwrite(fd, buf, part, offset);
        errno = fault_errno();
        return -1;
    }
    return real_pwrite(fd, buf, count, offset);
}

ssize_t pwrite64(int fd, const void *buf, size_t count, off64_t offset) {
    REAL(pwrite64);
    if (count > 0 && faulty(fd)) {
        size_t part = short_part(fd, count);
        if (part) return real_pwrite64(fd, buf, part, offset);
        errno = fault_errno();
        return -1;
    }
    return real_pwrite64(fd, buf, count, offset);
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt) {
    REAL(writev);
    if (faulty(fd)) {
        errno = fault_errno();
        return -1;
    }
    return real_writev(fd, iov, iovcnt);
}

ssize_t pwritev(int fd, const struct iovec *iov, int iovcnt, off_t offset) {
    REAL(pwritev);
    if (faulty(fd)) {
        errno = fault_errno();
        return -1;
    }
    return real_pwritev(fd, iov, iovcnt, offset);
}

ssize_t pwritev2(int fd, const struct iovec *iov, int iovcnt, off_t offset, int flags) {
    REAL(pwritev2);
    if (faulty(fd)) {
        errno = fault_errno();
        return -1;
    }
    return real_pwritev2(fd, iov, iovcnt, offset, flags);
}

int fallocate(int fd, int mode, off_t offset, off_t len) {
    REAL(fallocate);
    if (faulty(fd)) {
        errno = fault_errno();
        return -1;
    }
    return real_fallocate(fd, mode, offset, len);
}

int fallocate64(int fd, int mode, off64_t offset, off64_t len) {
    REAL(fallocate64);
    if (faulty(fd)) {
        errno = fault_errno();
        return -1;
    }
    return real_fallocate64(fd, mode, offset, len);
}

int posix_fallocate(int fd, off_t offset, off_t len) {
    REAL(posix_fallocate);
    if (faulty(fd)) return fault_errno(); /* returns the error, errno untouched */
    return real_posix_fallocate(fd, offset, len);
}

/* fsync fails only with EIO (the write-back error a full disk does not give) */
int fsync(int fd) {
    REAL(fsync);
    if (fault_errno() == EIO && faulty(fd)) {
        errno = EIO;
        return -1;
    }
    return real_fsync(fd);
}

int fdatasync(int fd) {
    REAL(fdatasync);
    if (fault_errno() == EIO && faulty(fd)) {
        errno = EIO;
        return -1;
    }
    return real_fdatasync(fd);
}
