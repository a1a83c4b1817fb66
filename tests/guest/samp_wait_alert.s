# A full block while a dedicated CPU waits: basic sampling at 1,000 samples/s into a ring of
# 4 SDBs with A = 1 in every trailer, measurement alerts enabled (CR0 bit 58) as well as the
# clock comparator (bit 52); ~10 ms busy, then an enabled wait that the clock comparator
# ends after ~300 ms unless a measurement alert comes first.
#   0x3000 STCK before the wait, 0x3008 after it, 0x3010 LSCTL cc (IPM)
#   0x3020 code of the interruption that ended the wait (halfword), 0x3024 its parameter
        .include "lowcore.inc"
start:  lghi  %r13,0x3000
        lghi  %r12,0x1000
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
        mvc   0x1b0(16),extpsw-0x1000(%r12)    # external new PSW -> woke
        stctg %c0,%c0,0x100(%r13)
        oi    0x106(%r13),0x08                 # CR0 bit 52: clock-comparator subclass
        oi    0x107(%r13),0x20                 # CR0 bit 58: measurement alert
        lctlg %c0,%c0,0x100(%r13)
        lsctl req-0x1000(%r12)
        ipm   %r1
        st    %r1,0x10(%r13)
        llilf %r6,3000000
busy1:  brctg %r6,busy1
        stck  0x00(%r13)
        lg    %r2,0x00(%r13)
        algfi %r2,0x493E0000                   # 300 ms: 300,000 us x 4,096
        stg   %r2,0x108(%r13)
        sckc  0x108(%r13)
        lpswe waitpsw2-0x1000(%r12)
woke:   stck  0x08(%r13)
        mvc   0x20(2,%r13),0x86                # interruption code
        mvc   0x24(4,%r13),0x80                # parameter
        lsctl zero-0x1000(%r12)                # disable: all-zero request
        DONE
        .align 8
req:    .quad 0x0000000000000202, 4404000, 0x10000, 0x20000   # 4404 x 10^6 / 1,000
        .quad 0, 0, 0, 0
zero:   .quad 0, 0, 0, 0, 0, 0, 0, 0
waitpsw2: .quad 0x0102000180000000, 0         # enabled (external) wait
extpsw: .quad 0x0000000180000000, woke
