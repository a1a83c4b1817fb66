# NUMCPU 2: every CPU enables and activates its basic counter set, then CPU 0 waits for the
# others and ends (disabled wait); the others end in a disabled wait of their own. The test's
# operator then IPLs (load-normal, then load-clear) a small ESA/390 program and looks at
# each CPU's counter sets with `hcpumf status`.
        .include "lowcore.inc"
start:  lghi  %r13,0x3000
        lghi  %r12,0x1000
        lcctl ctls-0x1000(%r12)
        lghi  %r1,1
        laa   %r8,%r1,0x100(%r13)           # a ticket: a STAP slot of this CPU's own
        llgfr %r8,%r8
        sllg  %r8,%r8,1
        la    %r8,0x110(%r8,%r13)
        stap  0(%r8)
        lh    %r0,0(%r8)
        ltr   %r0,%r0
        jz    2f
        lpswe idle-0x1000(%r12)
2:      l     %r0,0x100(%r13)
        chi   %r0,2
        jl    2b
        DONE
        .align 8
ctls:   .quad 0x0000000000020002
idle:   .quad 0x0002000180000000, 0x1d1e
