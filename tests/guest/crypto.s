# The crypto-activity counters count the CPACF functions the guest issues: KIMD SHA-256
# over 4 KB (repeated while it ends with cc 3, partial completion) with the crypto set and
# the coprocessor group active.
#   0x3000 SHA function count, 0x3008 SHA cycles, 0x3010 DEA count, 0x3018 CG SHA count,
#   0x3020 KIMD invocations
        .include "lowcore.inc"
start:  lghi  %r13,0x3000
        lghi  %r12,0x1000
        lcctl ctls-0x1000(%r12)
        lpctl cg-0x1000(%r12)
        llilf %r2,0x40000                     # message: 4 KB of zeros at 0x40000
        llilf %r3,4096
        lghi  %r0,2                           # KIMD-SHA-256
        llilf %r1,0x3800                      # parameter block (chaining value)
        lghi  %r9,0
1:      aghi  %r9,1
        kimd  %r0,%r2
        jo    1b
        stg   %r9,0x20(%r13)
        lghi  %r4,68
        ecctr %r5,%r4
        stg   %r5,0x00(%r13)
        lghi  %r4,69
        ecctr %r5,%r4
        stg   %r5,0x08(%r13)
        lghi  %r4,72
        ecctr %r5,%r4
        stg   %r5,0x10(%r13)
        lghi  %r4,0
        epctr %r5,%r4
        stg   %r5,0x18(%r13)
        DONE
        .align 8
ctls:   .quad 0x00000000000A000A              # crypto + basic
cg:     .quad 3
