#pragma once
// Linux I/O headers that the Glibc module does not export, plus wrappers Swift cannot call directly.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netdb.h>
#include <stdint.h>

/// accept4 with SOCK_NONBLOCK|SOCK_CLOEXEC (needs _GNU_SOURCE, which Swift does not set).
int herald_io_accept_nonblocking(int fd, struct sockaddr *addr, socklen_t *len);
/// Sets O_NONBLOCK on a descriptor; returns 0 or -1 with errno.
int herald_io_set_nonblocking(int fd);
/// The epoll_event's data as a 64-bit value (the union does not import cleanly).
uint64_t herald_io_event_data(const struct epoll_event *event);
uint32_t herald_io_event_flags(const struct epoll_event *event);
int herald_io_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data);
/// Names the calling thread for the kernel (top -H, perf, /proc); at most 15 bytes are kept.
void herald_io_name_current_thread(const char *name);
