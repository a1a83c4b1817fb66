# Sampling across an enabled wait (SA23-2260, Basic-Sampling Data Entry, W bit and
# programming note 5): basic sampling at 1,000 samples/s (H = 0, LPP, primary ASN 0x42 in
# CR4) into a ring of 8 SDBs without alerts; ~10 ms busy, an enabled wait of ~200 ms ended by
# the clock comparator, ~10 ms busy; sampling disabled; then the blocks are scanned.
#   0x3000 STCK before the wait, 0x3008 after it, 0x3010 LSCTL cc (IPM)
#   0x3040 entries with W = 1, 0x3048 with W = 0, 0x3050 W = 1 entries whose U or
#          instruction address is not zero
#   0x3200 the first W = 1 entry (32 bytes), 0x3220 the first W = 0 entry
#   SDBT at 0x10000, SDBs at 0x20000 + 4 KB x 0..7
        .include "lowcore.inc"
start:  lghi  %r13,0x3000
        lghi  %r12,0x1000
        llilf %r1,0x10000
        llilf %r2,0x20000
        lghi  %r3,8
sdbt:   stg   %r2,0(%r1)
        aghi  %r1,8
        agfi  %r2,0x1000
        brctg %r3,sdbt
        llilf %r2,0x10001                      # link back to the table
        stg   %r2,0(%r1)
        lctlg %c4,%c4,cr4-0x1000(%r12)         # primary ASN 0x42
        mvc   0x1b0(16),extpsw-0x1000(%r12)    # external new PSW -> woke
        stctg %c0,%c0,0x100(%r13)
        oi    0x106(%r13),0x08                 # CR0 bit 52: clock-comparator subclass
        lctlg %c0,%c0,0x100(%r13)
        lsctl req-0x1000(%r12)
        ipm   %r1
        st    %r1,0x10(%r13)
        lpp   pp-0x1000(%r12)
        llilf %r6,3000000
busy1:  brctg %r6,busy1
        stck  0x00(%r13)
        lg    %r2,0x00(%r13)
        algfi %r2,0x30D40000                   # 200 ms: 200,000 us x 4,096
        stg   %r2,0x108(%r13)
        sckc  0x108(%r13)
        lpswe waitpsw2-0x1000(%r12)
woke:   stck  0x08(%r13)
        llilf %r6,3000000
busy2:  brctg %r6,busy2
        lsctl zero-0x1000(%r12)                # disable: all-zero request
        # Scan the eight blocks: 126 entries of 32 bytes each.
        lghi  %r7,0                            # W = 1
        lghi  %r8,0                            # W = 0
        lghi  %r9,0                            # W = 1 with U or address not zero
        llilf %r1,0x20000
        lghi  %r3,8
blk:    lgr   %r5,%r1
        lghi  %r4,126
ent:    clhhsi 0(%r5),1
        jne   nxt
        tm    3(%r5),0x10
        jz    isbusy
        cgije %r7,0,firstw
cntw:   aghi  %r7,1
        cli   2(%r5),0
        jne   badw
        lg    %r0,8(%r5)
        cgije %r0,0,nxt
badw:   aghi  %r9,1
        j     nxt
firstw: mvc   0x200(32,%r13),0(%r5)
        j     cntw
isbusy: cgijne %r8,0,cntb
        mvc   0x220(32,%r13),0(%r5)
cntb:   aghi  %r8,1
nxt:    la    %r5,32(%r5)
        brctg %r4,ent
        agfi  %r1,0x1000
        brctg %r3,blk
        stg   %r7,0x40(%r13)
        stg   %r8,0x48(%r13)
        stg   %r9,0x50(%r13)
        DONE
        .align 8
cr4:    .quad 0x42
pp:     .quad 0x80000000000000AB
req:    .quad 0x0000000000000202, 4404000, 0x10000, 0x20000   # 4404 x 10^6 / 1,000
        .quad 0, 0, 0, 0
zero:   .quad 0, 0, 0, 0, 0, 0, 0, 0
waitpsw2: .quad 0x0102000180000000, 0         # enabled (external) wait
extpsw: .quad 0x0000000180000000, woke
