# Clock-comparator interruptions while the plugin's sampler makes Hercules' TOD-clock
# updates (host::timer_duty: it has no host core of its own when every core runs a CPU
# thread). SA23-2260 does not come into it: the clock comparator is the Principles of
# Operation's, and the point is that its interruptions come as promptly as Hercules' timer
# thread made them. Every CPU spins, sampled by the HIS run the test begins; CPU 0 first
# spins 500 ms of TOD time (the run begins, the sampler takes the updates), then 1,000
# rounds: CKC = now + 200 us, spin enabled for the clock-comparator subclass until the
# interruption, then its lateness (TOD at the interruption - CKC).
#   0x3000 rounds done, 0x3008 external interruption codes other than 0x1004
#   0x10000 + 8 x round: the round's lateness in TOD units (4,096 a microsecond)
        .include "lowcore.inc"
start:  lghi  %r13,0x3000
        larl  %r12,data
        CPU_ADDRESS %r10, 0x700, 0x780
        cgije %r10,0,cpu0
other:  j     other                            # sampled until Hercules ends
cpu0:   mvc   0x1b0(16),extpsw-data(%r12)      # external new PSW -> tick
        stctg %c0,%c0,0x100(%r13)
        oi    0x106(%r13),0x08                 # CR0 bit 52: clock-comparator subclass
        lctlg %c0,%c0,0x100(%r13)
        stck  0x110(%r13)
        lg    %r2,0x110(%r13)
        algfi %r2,0x7D000000                   # 500 ms: 500,000 us x 4,096
settle: stck  0x110(%r13)
        clg   %r2,0x110(%r13)
        jh    settle
        llilf %r11,0x10000                     # lateness of each round
        lghi  %r9,1000
round:  stck  0x118(%r13)
        lg    %r2,0x118(%r13)
        algfi %r2,819200                       # 200 us x 4,096
        stg   %r2,0x120(%r13)
        sckc  0x120(%r13)
        lpswe spinpsw-data(%r12)               # enabled for external interruptions
spin:   j     spin
tick:   stck  0x128(%r13)
        clhhsi 0x86,0x1004                     # clock comparator
        je    late
        lghi  %r1,1
        ag    %r1,0x08(%r13)
        stg   %r1,0x08(%r13)
        j     spinagain
late:   lg    %r3,0x128(%r13)
        slg   %r3,0x120(%r13)
        stg   %r3,0(%r11)
        la    %r11,8(%r11)
        lghi  %r1,1
        ag    %r1,0x00(%r13)
        stg   %r1,0x00(%r13)
        brctg %r9,round
        DONE
spinagain:
        lpswe spinpsw-data(%r12)
        .align 8
data:
spinpsw: .quad 0x0100000180000000, spin        # external mask on
extpsw: .quad 0x0000000180000000, tick
