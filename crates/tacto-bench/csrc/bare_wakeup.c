/* The floor under any executor: a thread that only sleeps in epoll_wait on a periodic timerfd
 * and wakes RATE times a second, doing nothing else. Its CPU per second is what the kernel
 * charges for the wake-ups alone; docs/benchmarks.md compares the reference system at
 * crunch 0 (53.3 wake-ups a second) with it, in the same minutes.
 *
 *   gcc -O2 -o /tmp/bare_wakeup crates/tacto-bench/csrc/bare_wakeup.c
 *   /tmp/bare_wakeup 53.3 20      # rate in Hz, seconds; prints CPU as % of a core
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static double cpu_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    double rate = argc > 1 ? atof(argv[1]) : 53.3;
    double secs = argc > 2 ? atof(argv[2]) : 20.0;
    if (rate <= 0 || secs <= 0) {
        fprintf(stderr, "usage: bare_wakeup RATE_HZ SECONDS\n");
        return 2;
    }
    long period_ns = (long)(1e9 / rate);
    int tfd = timerfd_create(CLOCK_MONOTONIC, 0);
    struct itimerspec spec = {{period_ns / 1000000000, period_ns % 1000000000},
                              {period_ns / 1000000000, period_ns % 1000000000}};
    timerfd_settime(tfd, 0, &spec, NULL);
    int ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = tfd};
    epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev);
    long wakeups = (long)(rate * secs);
    double start = cpu_s();
    for (long i = 0; i < wakeups; i++) {
        struct epoll_event out;
        uint64_t expirations;
        epoll_wait(ep, &out, 1, -1);
        if (read(tfd, &expirations, sizeof expirations) < 0) return 1;
    }
    double used = cpu_s() - start;
    printf("%ld wake-ups at %.1f Hz: %.4f s CPU, %.3f%% of a core, %.1f us per wake-up\n",
           wakeups, rate, used, 100.0 * used / secs, 1e6 * used / wakeups);
    return 0;
}
