/* The floor under sampling several busy CPU threads on a host whose cores they fill: N
 * threads spin on arithmetic for SECS seconds each phase, and their work per second of their
 * own CPU time is compared with a phase in which nothing else happens:
 *   ordinary  - an ordinary thread wakes every PERIOD ns and does nothing;
 *   realtime  - the same thread at SCHED_FIFO 1 (refused without the privilege: said so);
 *   signals   - each busy thread gets a POSIX timer signal every PERIOD ns (SIGEV_THREAD_ID),
 *               a handler that does nothing: sampling done by the CPU threads themselves;
 *   rr        - the busy threads at SCHED_RR 3 and the waker at SCHED_FIFO 4 above them, as
 *               SDL Hyperion run as root has its CPU threads and the plugin its sampler when
 *               they fill the cores (only with the privilege), against the same SCHED_RR
 *               threads alone (the kernel's real-time throttling stops them and the waker
 *               for the last 50 ms of each second: the waker then owes wake-ups).
 * Usage: wake-busy THREADS PERIOD_NS SECS. Any sampler that wakes once per interval, even one
 * wake-up for all the threads' samples, pays at least the "realtime" figure ("rr" where the
 * CPU threads are real-time). The waker sleeps to absolute times, so one woken late does the
 * wake-ups it owes at once, without sleeping: "sleeps/s" counts those that slept, the host's
 * timer events. An ordinary waker, put off by the busy threads, sleeps far less often than it
 * should (measured 1,200-1,500 times a second for 13,333 owed), so its figure is no floor. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { NONE, ORDINARY, REALTIME, SIGNALS, RR, RR_NONE };
static const char *names[] = {"nothing", "ordinary", "realtime", "signals", "rr", "rr alone"};
static volatile int stop;
static long period_ns;
static int mode;
static double rate[64];
static unsigned long signals;

static double clk(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}
static void handler(int s) { (void)s; __atomic_add_fetch(&signals, 1, __ATOMIC_RELAXED); }

static void *busy(void *a)
{
    int me = (int)(long)a;
    unsigned long x = 1, n = 0;
    timer_t t;
    if (mode == RR || mode == RR_NONE) {
        struct sched_param p = {.sched_priority = 3};
        pthread_setschedparam(pthread_self(), SCHED_RR, &p);
    }
    if (mode == SIGNALS) {
        struct sigevent ev;
        struct itimerspec its = {{0, period_ns}, {0, period_ns}};
        memset(&ev, 0, sizeof ev);
        ev.sigev_notify = SIGEV_THREAD_ID;
        ev.sigev_signo = SIGRTMIN + 3;
        ev._sigev_un._tid = syscall(SYS_gettid);
        if (timer_create(CLOCK_MONOTONIC, &ev, &t) == 0)
            timer_settime(t, 0, &its, NULL);
    }
    double c0 = clk(CLOCK_THREAD_CPUTIME_ID);
    while (!stop) {
        for (int i = 0; i < 10000; i++)
            x += i ^ (x >> 3);
        n++;
    }
    rate[me] = n / (clk(CLOCK_THREAD_CPUTIME_ID) - c0);
    if (mode == SIGNALS)
        timer_delete(t);
    return x == 42 ? (void *)a : NULL;
}

static unsigned long wakes, sleeps;
static double max_late_us;
static double since(const struct timespec *t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - t->tv_sec) * 1e6 + (now.tv_nsec - t->tv_nsec) / 1e3;
}
static void *waker(void *a)
{
    (void)a;
    struct timespec t;
    if (mode == REALTIME || mode == RR) {
        struct sched_param p = {.sched_priority = mode == RR ? 4 : 1};
        if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &p))
            fprintf(stderr, "wake-busy: no real-time priority (needs CAP_SYS_NICE)\n");
    }
    clock_gettime(CLOCK_MONOTONIC, &t);
    while (!stop) {
        t.tv_nsec += period_ns;
        while (t.tv_nsec >= 1000000000) { t.tv_nsec -= 1000000000; t.tv_sec++; }
        if (since(&t) < 0)
            sleeps++;
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
        double late = since(&t);
        if (late > max_late_us)
            max_late_us = late;
        wakes++;
    }
    return NULL;
}

static double phase(int n, int m, int secs, double *events, double *slept)
{
    pthread_t th[64], w;
    double sum = 0, w0 = clk(CLOCK_MONOTONIC);
    int waking = m == ORDINARY || m == REALTIME || m == RR;
    stop = 0; mode = m; wakes = 0; sleeps = 0; signals = 0; max_late_us = 0;
    for (long i = 0; i < n; i++)
        pthread_create(&th[i], NULL, busy, (void *)i);
    if (waking)
        pthread_create(&w, NULL, waker, NULL);
    sleep(secs);
    stop = 1;
    for (int i = 0; i < n; i++) {
        pthread_join(th[i], NULL);
        sum += rate[i];
    }
    if (waking)
        pthread_join(w, NULL);
    double wall = clk(CLOCK_MONOTONIC) - w0;
    *events = (m == SIGNALS ? signals : wakes) / wall;
    *slept = (m == SIGNALS ? signals : sleeps) / wall;
    return sum / n;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4, secs = argc > 3 ? atoi(argv[3]) : 3;
    struct sigaction sa;
    double ev, slept, base;
    int last = geteuid() == 0 ? RR : SIGNALS;
    period_ns = argc > 2 ? atol(argv[2]) : 75000;
    if (n < 1 || n > 64 || period_ns < 1000 || secs < 1) {
        fprintf(stderr, "usage: wake-busy THREADS(1-64) PERIOD_NS SECS\n");
        return 2;
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGRTMIN + 3, &sa, NULL);
    base = phase(n, NONE, secs, &ev, &slept);
    for (int m = ORDINARY; m <= last; m++) {
        if (m == RR) /* against the same SCHED_RR threads with no waker */
            base = phase(n, RR_NONE, secs, &ev, &slept);
        double r = phase(n, m, secs, &ev, &slept);
        printf("%d busy threads, %-8s every %ld ns: work per CPU-second %.4f of nothing's "
               "(%.0f events/s, %.0f sleeps/s", n, names[m], period_ns, r / base, ev, slept);
        if (m != SIGNALS)
            printf(", woken up to %.0f us late", max_late_us);
        printf(")\n");
    }
    return 0;
}
