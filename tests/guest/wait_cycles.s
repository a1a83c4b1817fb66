# The cycle counter does not grow while the CPU sits in an enabled wait: cycles before and
# after waits of about 0.3 s, each ended by a clock-comparator interruption.
# A first wait of about 10 ms runs the same path unmeasured: the first external interruption
# of a run makes the host fault in Hercules' and the plugin's code for it (seen with perf:
# 50-300 us of the CPU thread's time, once per run, not per wait).
#   wait i (0-2) at 0x20*i: +0x00 cycles before, +0x08 after, +0x10 TOD before, +0x18 after
        .include "lowcore.inc"
start:  lghi  %r13,0x3000
        lghi  %r12,0x1000                  # code base (constants: X-0x1000(%r12))
        lcctl ctls-0x1000(%r12)
        mvc   0x1b0(16),extpsw-0x1000(%r12)   # external new PSW -> woke
        stctg %c0,%c0,0x100(%r13)
        oi    0x106(%r13),0x08                # CR0 bit 52: clock-comparator subclass
        lctlg %c0,%c0,0x100(%r13)
        lghi  %r3,0
        lghi  %r6,4                           # four waits; the last three are measured
        lghi  %r8,0x80                        # where the first (unmeasured) one goes
        lghi  %r11,0                          # the measured ones: 0x00, 0x20, 0x40
        llilf %r7,0x2710000                   # the first: ~10 ms of TOD units (2^12 per us)
again:  la    %r9,0(%r8,%r13)
        stck  0x10(%r9)
        lg    %r2,0x10(%r9)
        algr  %r2,%r7
        stg   %r2,0x108(%r13)
        sckc  0x108(%r13)
        ecctr %r4,%r3
        stg   %r4,0x00(%r9)
        lpswe waitpsw2-0x1000(%r12)
woke:   ecctr %r5,%r3
        stg   %r5,0x08(%r9)
        stck  0x18(%r9)
        llilf %r7,0x4B000000                  # the others: ~0.3 s
        lgr   %r8,%r11                        # the next wait's slot
        aghi  %r11,0x20
        brct  %r6,again
        DONE
        .align 8
ctls:   .quad 0x0000000000020002
waitpsw2: .quad 0x0102000180000000, 0      # enabled (external) wait
extpsw: .quad 0x0000000180000000, woke
