# NUMCPU 4: every CPU enables its basic set, runs (CPU address + 1) million BRCTGs and stores
# its own instruction count at 0x3000 + 8 * CPU; CPU 0 waits for all, then sends SIGP
# initial CPU reset (order 0B) to CPU 1 and SIGP CPU reset (order 0C) to CPU 2.
#   0x3000.. counts, 0x3100 CPUs done, 0x3108/0x310C SIGP condition codes
        .include "lowcore.inc"
start:  lghi  %r13,0x3000
        lghi  %r12,0x1000
        lghi  %r1,1
        laa   %r8,%r1,0x110(%r13)            # a ticket: a slot of its own for STAP
        sllg  %r8,%r8,3
        la    %r8,0x180(%r8,%r13)
        stap  0(%r8)                         # own CPU address
        lh    %r10,0(%r8)
        lcctl ctls-0x1000(%r12)
        lgr   %r6,%r10
        aghi  %r6,1
        msgfi %r6,1000000
        lghi  %r2,1
        ecctr %r4,%r2
loop:   brctg %r6,loop
        ecctr %r5,%r2
        sgr   %r5,%r4
        sllg  %r11,%r10,3
        stg   %r5,0(%r11,%r13)
        lghi  %r1,1
        laa   %r0,%r1,0x100(%r13)            # one more CPU done
        ltr   %r10,%r10
        jnz   idle
wait:   l     %r0,0x100(%r13)
        chi   %r0,4
        jl    wait
        lghi  %r3,1
        sigp  %r0,%r3,0x0b                   # initial CPU reset of CPU 1
        ipm   %r0
        st    %r0,0x108(%r13)
        lghi  %r3,2
        sigp  %r0,%r3,0x0c                   # CPU reset of CPU 2
        ipm   %r0
        st    %r0,0x10c(%r13)
        DONE
idle:   lpswe idlepsw-0x1000(%r12)
        .align 8
ctls:   .quad 0x0000000000020002
idlepsw: .quad 0x0002000180000000, 0x1d1e
