# A measurement alert wakes a CPU in an enabled wait: the guest enables the basic counter
# set, triggers the operator (invalid instruction) who runs `hcpumf inject lcda cpu=0`, and
# loads an enabled wait PSW; the 1407 interruption resumes it at `woke`.
        .include "lowcore.inc"
start:  lghi  %r13,0x3000
        lghi  %r12,0x1000
        lcctl ctls-0x1000(%r12)
        mvc   0x1b0(16),extpsw-0x1000(%r12)
        .short 0
        lpswe waitpsw2-0x1000(%r12)
woke:   mvc   0x80(4,%r13),0x80                # interruption parameter
        mvc   0x84(2,%r13),0x86                # interruption code
        qctri 0(%r13)
        DONE
        .align 8
ctls:   .quad 0x0000000000020002
waitpsw2: .quad 0x0102000180000000, 0
extpsw: .quad 0x0000000180000000, woke
