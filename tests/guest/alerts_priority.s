# Priority among external interruptions (SA23-2260, External Interruption: the measurement
# alert comes after interrupt key, malfunction alert, emergency signal, external call, clock
# comparator, CPU timer and timing alert). With the PSW external mask off the guest gets a
# measurement alert pending (the operator runs `hcpumf inject lcda cpu=0` on the invalid
# instruction) and then an emergency signal (SIGP to itself); enabling the mask must present
# the emergency signal (1201) first and the measurement alert (1407) after it.
#   0x3080 loops spun after enabling (0 = both came at once)
        .include "lowcore.inc"
start:  lghi  %r13,0x3000
        lghi  %r12,0x1000
        stctg %c0,%c0,0x90(%r13)
        oi    0x96(%r13),0x40                 # CR0 bit 49: emergency-signal subclass mask
        oi    0x97(%r13),0x20                 # CR0 bit 58: measurement-alert subclass mask
        lctlg %c0,%c0,0x90(%r13)
        lcctl ctls-0x1000(%r12)               # basic set enabled and active
        .short 0                              # operation exception: the operator acts
        llilf %r6,30000000                    # ~0.1 s: the alert is pending by then
1:      brctg %r6,1b
        stap  0x98(%r13)
        lh    %r3,0x98(%r13)
        sigp  %r4,%r3,3                       # emergency signal to this CPU
        lghi  %r7,0
        stosm 0x9c(%r13),0x01
2:      lg    %r0,0x3bf8
        cghi  %r0,2
        jnl   3f
        aghi  %r7,1
        cfi   %r7,200000000
        jl    2b
3:      stnsm 0x9c(%r13),0xfe
        stg   %r7,0x80(%r13)
        DONE
        .align 8
ctls:   .quad 0x0000000000020002
