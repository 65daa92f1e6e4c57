#define _GNU_SOURCE
#include "io_shims.h"
#include <fcntl.h>
#include <string.h>
#include <pthread.h>

int herald_io_accept_nonblocking(int fd, struct sockaddr *addr, socklen_t *len) {
    return accept4(fd, addr, len, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

int herald_io_set_nonblocking(int fd) {
    int flags = fcntl(fd, F_GETFL, 0);
    if (flags < 0) return -1;
    return fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

uint64_t herald_io_event_data(const struct epoll_event *event) { return event->data.u64; }
uint32_t herald_io_event_flags(const struct epoll_event *event) { return event->events; }

int herald_io_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data) {
    struct epoll_event ev;
    memset(&ev, 0, sizeof ev);
    ev.events = events;
    ev.data.u64 = data;
    return epoll_ctl(epfd, op, fd, &ev);
}

/* Names the calling thread for the kernel (what `top -H`, `perf` and /proc show): Foundation's `Thread.name`
   does not reach it on Linux. The kernel keeps at most 15 bytes; longer names are cut. */
void herald_io_name_current_thread(const char *name) {
    char cut[16];
    strncpy(cut, name, sizeof cut - 1);
    cut[sizeof cut - 1] = 0;
    pthread_setname_np(pthread_self(), cut);
}
