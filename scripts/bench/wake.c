/* The floor of any design that wakes a thread once per sample: the CPU time a thread spends
 * per timed wake-up (clock_nanosleep to an absolute deadline, 1 ns timer slack, as the
 * sampler thread sleeps), at a given period. Usage: wake PERIOD_NS COUNT */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

static long long ns(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
    long period = argc > 1 ? atol(argv[1]) : 75000;
    long n = argc > 2 ? atol(argv[2]) : 40000;
    struct timespec t;
    long long late = 0, c0, w0, c1, w1;
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    clock_gettime(CLOCK_MONOTONIC, &t);
    c0 = ns(CLOCK_THREAD_CPUTIME_ID);
    w0 = ns(CLOCK_MONOTONIC);
    for (long i = 0; i < n; i++) {
        t.tv_nsec += period;
        while (t.tv_nsec >= 1000000000) {
            t.tv_nsec -= 1000000000;
            t.tv_sec++;
        }
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
        late += ns(CLOCK_MONOTONIC) - (t.tv_sec * 1000000000LL + t.tv_nsec);
    }
    c1 = ns(CLOCK_THREAD_CPUTIME_ID);
    w1 = ns(CLOCK_MONOTONIC);
    printf("period %ld ns: %ld wake-ups in %.2f s, %.2f us of the thread's CPU time each, "
           "%.1f us late on average\n",
           period, n, (w1 - w0) / 1e9, (c1 - c0) / 1e3 / n, late / 1e3 / n);
    return 0;
}
