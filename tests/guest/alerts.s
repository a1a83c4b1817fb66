# Measurement alerts from external means while the guest runs. The guest enables the
# problem-state and basic counter sets and basic sampling (active, at the maximum interval
# so that no sample is due), then executes an invalid instruction: the automatic operator
# sees the program check and runs `hcpumf inject lsda` and `hcpumf auth counters=b
# sampling=none`, then sets the flag at 0x30A0. The guest waits for the flag and spins on
# with the PSW external mask off for a while (the alert must stay pending), then enables it
# and waits for the 1407 interruption.
#   0x3000 QCTRI after, 0x3040 QSI after, 0x3080 loops spun before the interruption came
        .include "lowcore.inc"
start:  lghi  %r13,0x3000
        lghi  %r12,0x1000
        lcctl ctls-0x1000(%r12)
        qsi   0x40(%r13)
        lg    %r2,0x50(%r13)                  # maximum interval
        stg   %r2,req+8-0x1000(%r12)
        lsctl req-0x1000(%r12)
        .short 0                              # operation exception: the operator acts
        llilf %r6,1000000000                  # wait (seconds at most) for the operator's
0:      cli   0xa0(%r13),0                    # flag, set after its commands: on a loaded
        jne   4f                              # host they may come late
        brctg %r6,0b
4:      llilf %r6,30000000                    # ~0.1 s more with the external mask off
1:      brctg %r6,1b
        lghi  %r7,0
        stosm 0x90(%r13),0x01
2:      aghi  %r7,1
        lg    %r0,0x3bf8
        ltgr  %r0,%r0
        jnz   3f
        cfi   %r7,200000000
        jl    2b
3:      stnsm 0x90(%r13),0xfe
        stg   %r7,0x80(%r13)
        qctri 0(%r13)
        qsi   0x40(%r13)
        DONE
        .align 8
ctls:   .quad 0x0000000000060006
req:    .quad 0x4000000000000202, 0, 0x10000, 0x20000
        .quad 0, 0, 0, 0
