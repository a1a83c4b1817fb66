# Basic sampling end to end: a ring of 4 SDBs (A = 1 in every trailer) in one SDBT, LSCTL
# at a 5,000-samples/s interval with H = 1, LPP, a busy loop for ~0.4 s of CPU time with the
# measurement alert enabled (CR0 bit 58, PSW external mask); the external-interruption
# handler of lowcore.inc logs every 1407 interruption. Then QSI, sampling disabled.
#   0x3000 QSI before LSCTL, 0x3040 QSI while sampling, 0x3080 LSCTL cc, 0x3088 loop address
#   SDBT at 0x10000, SDBs at 0x20000, 0x21000, 0x22000, 0x23000
        .include "lowcore.inc"
start:  lghi  %r13,0x3000
        lghi  %r12,0x1000
        qsi   0(%r13)
        llilf %r1,0x10000
        llilf %r2,0x20000
        lghi  %r3,4
sdbt:   stg   %r2,0(%r1)
        mvi   0xfc0(%r2),0x40                  # trailer: A = 1
        aghi  %r1,8
        agfi  %r2,0x1000
        brctg %r3,sdbt
        llilf %r2,0x10001                      # link back to the table
        stg   %r2,0(%r1)
        lg    %r2,0x10(%r13)                   # min interval from QSI
        lg    %r2,interval-0x1000(%r12)
        stg   %r2,req+8-0x1000(%r12)
        lsctl req-0x1000(%r12)
        ipm   %r1
        st    %r1,0x80(%r13)
        lpp   pp-0x1000(%r12)
        qsi   0x40(%r13)
        stctg %c0,%c0,0x90(%r13)
        oi    0x97(%r13),0x20                  # CR0 bit 58: measurement alert
        lctlg %c0,%c0,0x90(%r13)
        stosm 0x98(%r13),0x01                  # PSW external mask
        larl  %r1,loop
        stg   %r1,0x88(%r13)
        llilf %r6,150000000
loop:   brctg %r6,loop
        stnsm 0x98(%r13),0xfe
        lsctl zero-0x1000(%r12)                # disable: all-zero request
        qsi   0xc0(%r13)
        DONE
        .align 8
interval: .quad 880800                         # 4404 * 10^6 / 5,000
pp:     .quad 0x80000000000000AB
req:    .quad 0x4000000000000202, 0, 0x10000, 0x20000
        .quad 0, 0, 0, 0
zero:   .quad 0, 0, 0, 0, 0, 0, 0, 0
