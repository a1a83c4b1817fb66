# Sampling activations, stressed (issue 21). Every CPU (NUMCPU 1 or more, each on its own
# storage) runs ROUNDS rounds; each round activates sampling seven times with LOAD SAMPLING
# CONTROLS at the QSI minimum interval (the maximum rate), each activation with a new TEAR
# and DEAR into a ring of cleared sample-data blocks (a table of block links and a table link
# back to it), spins SPINS iterations of BRCTG with the external mask on, reads the basic
# counter set's cycle count (ECCTR) and deactivates or disables (kind 6 spins twice as long):
#   0 basic, first activation (disabled -> active)
#   1 basic, re-activation while active (active -> active, new TEAR and DEAR); then LSCTL
#     Es = 1, Cs = 0: inactive
#   2 basic, re-activation from the inactive state (new TEAR and DEAR); then disabled
#   3 diagnostic alone (disabled -> active); then Ed = 1, Cd = 0: inactive
#   4 combined, basic from disabled and diagnostic from inactive, into one ring of blocks
#   5 an invalid entry address: TEAR on the last entry of a table before its 4-KB boundary,
#     a block link; DEAR inside that block's trailer (even rounds) or beyond main storage
#     (odd rounds); CR0 bit 58 off during the spin. SA23-2260 ("Sample-Data-Block Update
#     Process"): the first update process recognizes the invalid-entry-address alert and
#     places the functions in the inactive state; the alert is presented once CR0 bit 58 is
#     set again (code 1407, parameter 80000000)
#   6 basic into a ring whose first block is in the last page of main storage (MAINSIZE 64:
#     CPU a's page is 0x4000000 - (a + 1) * 4 KB), which the spin fills; then disabled
# After each round the CPU walks every ring in table order and counts the valid entries of
# the right format, the overflow counts, and the trailers that carry an overflow count
# although their block is not full (F = 0). Per kind it keeps the activation furthest below
# the bound stored >= 0.98 x cycles / interval - SLACK (the worst D = (100 x (stored + SLACK))
# x interval - 98 x cycles) and the one furthest above stored <= cycles / interval + SLACK
# (U = (stored - SLACK) x interval - cycles).
#
# Results of CPU a, kind k at 0x10000 + a * 0x800 + k * 0x100:
#   +0x00 activations   +0x08 worst D   +0x10 its entries stored   +0x18 its cycles
#   +0x20 its overflow counts (all trailers)   +0x28 entries stored in all activations
#   +0x30 cycles of all activations   +0x38 entries of a wrong format or invalid (I = 1)
#   +0x40 worst U   +0x48 its entries stored   +0x50 its cycles
#   +0x58 activations that stored nothing   +0x60 trailers with an overflow count and F = 0
#   +0x68 the sum of those counts   +0x70 LSCTL with a condition code other than 0
#   +0x78 external interruptions while the kind's spin ran (none is expected)
#   kind 5 only: +0x80 alerts presented as expected (once, 1407, 80000000)
#   +0x88 activations whose spin ended with basic sampling still active (no update process
#   in the whole spin)   +0x90 alerts missing, repeated or wrong   +0x98 the last such
#   interruption (code << 32 | parameter)   +0xa0 TEAR or DEAR changed   +0xa8 trailer or
#   storage below DEAR changed (the block's trailer must stay zero)
#   every kind but 5: +0xb0 the fewest entries an activation stored, +0xb8 the most
# Every activation of CPU a, round r (0, 1, ...), kind k but 5 at 0x200000 + a * 0x10000 +
# (r * 7 + k) * 24: entries stored, cycles, instructions (basic counters 0 and 1) of its spin.
# 0x3200 + a * 8: SPX operands; 0x3700 tickets, 0x3708 CPUs done, 0x3780 STAP slots.
# In CPU a's own prefix area (real, 0x300000 + a * 0x2000): 0xd00 external handler's save
# area; 0xe00 request block; 0xe80 external interruptions taken, 0xe88 the last one (code
# << 32 | parameter); 0xea0 + 8k cycles at kind k's activation, 0xee0 + 8k at its end;
# 0xf20 CR0; 0xf28 the QSI minimum interval; 0xf30 data base; 0xf40 interruptions at the
# activation; 0xf48 STOSM byte; 0xf50 walk: stored, overflow sum, bad entries, non-full
# trailers with a count, their sum; 0xf38 the per-activation records; 0xc00 + 8k
# instructions at kind k's activation, 0xc40 + 8k at its end; 0xf80 QSI block.
# Data of CPU a: 0x1000000 + a * 0x800000, kind k's table at + k * 0x100000, its blocks from
# the table + 0x1000.
        .include "lowcore.inc"
        .set  ROUNDS, 200
        .set  SPINS, 2000000
        .set  NKINDS, 7
        .set  SLACK, 2
        .set  WAITS, 20000000                  # iterations at most waiting for an alert
        .macro SPIN n=SPINS
        llilf %r1,\n
97:     brctg %r1,97b
        .endm
start:  j     main
        .org  0x4000
main:   lghi  %r13,0x3000
        larl  %r12,data
        CPU_ADDRESS %r10, 0x700, 0x780
        llgfr %r10,%r10
        mvc   0x1b0(16),extpsw-data(%r12)      # external new PSW (the same for every CPU)
        sllg  %r1,%r10,3
        la    %r1,0x200(%r1,%r13)              # this CPU's SPX operand
        OWN_PREFIX 0x300000, %r10, 0(%r1)
        llilf %r11,0x10000
        sllg  %r1,%r10,11
        agr   %r11,%r1                         # results
        llilf %r1,0x1000000
        sllg  %r2,%r10,23
        agr   %r1,%r2
        stg   %r1,0xf30                        # data base
        llilf %r1,0x200000
        sllg  %r2,%r10,16
        agr   %r1,%r2
        stg   %r1,0xf38                        # per-activation records
        xc    0xe80(24),0xe80
        lcctl ctls-data(%r12)
        qsi   0xf80
        mvc   0xf28(8),0xf88                   # the minimum interval
        stctg %c0,%c0,0xf20
        oi    0xf27,0x20                       # CR0 bit 58: measurement alerts
        lctlg %c0,%c0,0xf20
        # The tables: NB block links and a link back, for every kind but 5.
        lghi  %r7,0
1:      sllg  %r6,%r7,5
        la    %r6,kinds-data(%r6,%r12)
        lg    %r8,0xf30
        sllg  %r1,%r7,20
        agr   %r8,%r1                          # the table
        lgr   %r2,%r8
        agfi  %r2,0x1000                       # its first block
        lg    %r5,8(%r6)
        ltgr  %r5,%r5
        jz    3f
2:      stg   %r2,0(%r8)
        agfi  %r2,0x1000
        aghi  %r8,8
        brctg %r5,2b
        lgr   %r2,%r8
        nill  %r2,0xf000
        oill  %r2,1
        stg   %r2,0(%r8)                       # table link back to the origin
3:      aghi  %r7,1
        cghi  %r7,NKINDS
        jl    1b
        lg    %r8,0xf30                        # kind 6: the first block in the last page
        agfi  %r8,0x600000
        llilf %r2,0x4000000
        sllg  %r1,%r10,12
        sgr   %r2,%r1
        agfi  %r2,-0x1000
        stg   %r2,0(%r8)
        lg    %r8,0xf30                        # kind 5: the last entry before 4 KB
        agfi  %r8,0x500000
        lgr   %r2,%r8
        agfi  %r2,0x1000
        stg   %r2,0xff8(%r8)
        llilf %r9,ROUNDS
round:  bras  %r14,clear
        lghi  %r7,0                            # 0: basic, first activation
        bras  %r14,go
        SPIN
        bras  %r14,mark
        lghi  %r7,1                            # 1: basic, again while active
        bras  %r14,go
        SPIN
        bras  %r14,mark
        mvc   0xe00(8),inactb-data(%r12)
        lsctl 0xe00
        lghi  %r7,2                            # 2: basic, from inactive
        bras  %r14,go
        SPIN
        bras  %r14,mark
        lsctl zero-data(%r12)
        lghi  %r7,3                            # 3: diagnostic alone
        bras  %r14,go
        SPIN
        bras  %r14,mark
        mvc   0xe00(8),inactd-data(%r12)
        lsctl 0xe00
        lghi  %r7,4                            # 4: combined
        bras  %r14,go
        SPIN
        bras  %r14,mark
        lsctl zero-data(%r12)
        bras  %r14,alertk                      # 5: invalid entry address
        lsctl zero-data(%r12)
        lghi  %r7,6                            # 6: the last page of main storage
        bras  %r14,go
        SPIN  2*SPINS                          # enough to fill a block (126 entries)
        bras  %r14,mark
        lsctl zero-data(%r12)
        lghi  %r7,0                            # count what every ring holds
4:      cghi  %r7,5
        je    5f
        bras  %r14,walk
        bras  %r14,record
5:      aghi  %r7,1
        cghi  %r7,NKINDS
        jl    4b
        brctg %r9,round
        lghi  %r1,1
        laa   %r2,%r1,0x708(%r13)              # one more CPU done
        ltgr  %r10,%r10
        jnz   idle
6:      l     %r2,0x708(%r13)
        c     %r2,0x700(%r13)                  # every CPU that took a ticket
        jl    6b
        spx   zero-data(%r12)                  # prefix 0 again for the harness
        DONE
idle:   lpswe idlepsw-data(%r12)

# Activate kind r7 into its ring (TEAR: its table, DEAR: the first block): r6 = its
# descriptor. Takes the cycle count just before the LSCTL; the external mask goes on.
go:     sllg  %r6,%r7,5
        la    %r6,kinds-data(%r6,%r12)
        xc    0xe00(64),0xe00
        mvc   0xe00(8),24(%r6)
        mvc   0xe08(8),0xf28
        lg    %r1,0xf30
        sllg  %r2,%r7,20
        agr   %r1,%r2
        stg   %r1,0xe10                        # TEAR
        lg    %r2,0(%r1)
        nill  %r2,0xf000
        stg   %r2,0xe18                        # DEAR
        mvc   0xf40(8),0xe80
        sllg  %r3,%r7,3
        lghi  %r4,1
        ecctr %r0,%r4
        stg   %r0,0xc00(%r3)                   # instructions
        lghi  %r4,0
        ecctr %r0,%r4
        stg   %r0,0xea0(%r3)                   # cycles
        lsctl 0xe00
        jz    1f
        sllg  %r1,%r7,8
        la    %r1,0(%r1,%r11)
        lg    %r0,0x70(%r1)
        aghi  %r0,1
        stg   %r0,0x70(%r1)
1:      stosm 0xf48,0x01
        br    %r14

# The spin of kind r7 ended: external mask off, the cycle count, interruptions taken.
mark:   stnsm 0xf48,0xfe
        lghi  %r4,0
        sllg  %r3,%r7,3
        ecctr %r0,%r4
        stg   %r0,0xee0(%r3)                   # cycles
        lghi  %r4,1
        ecctr %r0,%r4
        stg   %r0,0xc40(%r3)                   # instructions
        lg    %r0,0xe80
        sg    %r0,0xf40
        sllg  %r1,%r7,8
        la    %r1,0(%r1,%r11)
        ag    %r0,0x78(%r1)
        stg   %r0,0x78(%r1)
        br    %r14

# Clear the blocks of every ring (uses r0-r8).
clear:  lghi  %r7,0
1:      sllg  %r6,%r7,5
        la    %r6,kinds-data(%r6,%r12)
        lg    %r8,0xf30
        sllg  %r1,%r7,20
        agr   %r8,%r1
        lg    %r5,8(%r6)
        ltgr  %r5,%r5
        jz    4f
2:      lg    %r2,0(%r8)
        nill  %r2,0xf000
        lghi  %r3,16
3:      xc    0(256,%r2),0(%r2)
        la    %r2,256(%r2)
        brctg %r3,3b
        aghi  %r8,8
        brctg %r5,2b
4:      aghi  %r7,1
        cghi  %r7,NKINDS
        jl    1b
        br    %r14

# Walk kind r7's ring in table order: valid entries of its format until the first empty
# one or the trailer, then the trailer. Results at 0xf50 (uses r0-r6, r8).
walk:   sllg  %r6,%r7,5
        la    %r6,kinds-data(%r6,%r12)
        xc    0xf50(40),0xf50
        lg    %r8,0xf30
        sllg  %r1,%r7,20
        agr   %r8,%r1
        lg    %r5,8(%r6)
1:      lg    %r2,0(%r8)
        nill  %r2,0xf000                       # the block
        lgr   %r3,%r2
        agfi  %r3,0xfc0                        # its trailer
2:      lgr   %r0,%r2
        ag    %r0,0(%r6)
        clgr  %r0,%r3
        jh    4f                               # no room for another entry
        lh    %r0,0(%r2)
        ltr   %r0,%r0
        jz    4f
        ch    %r0,16(%r6)
        jne   3f
        lh    %r0,18(%r6)                      # combined: the diagnostic part
        ltr   %r0,%r0
        jz    21f
        ch    %r0,32(%r2)
        jne   3f
21:     tm    3(%r2),0x01                      # I: invalid
        jo    3f
        agsi  0xf50,1
        j     31f
3:      agsi  0xf60,1
31:     ag    %r2,0(%r6)
        j     2b
4:      lg    %r0,8(%r3)                       # overflow count
        lg    %r1,0xf58
        agr   %r1,%r0
        stg   %r1,0xf58
        ltgr  %r0,%r0
        jz    5f
        tm    0(%r3),0x80                      # F
        jo    5f
        agsi  0xf68,1
        lg    %r1,0xf70
        agr   %r1,%r0
        stg   %r1,0xf70
5:      aghi  %r8,8
        brctg %r5,1b
        br    %r14

# Add kind r7's walk to its record and its row (uses r0-r4, r8).
record: sllg  %r1,%r7,3
        lg    %r4,0xee0(%r1)
        sg    %r4,0xea0(%r1)                   # cycles
        lg    %r3,0xf50                        # stored
        lg    %r0,0xc40(%r1)
        sg    %r0,0xc00(%r1)                   # instructions
        llilf %r8,ROUNDS                       # the row: (round * 7 + kind) * 24
        sgr   %r8,%r9
        mghi  %r8,7
        agr   %r8,%r7
        mghi  %r8,24
        ag    %r8,0xf38
        stg   %r3,0(%r8)
        stg   %r4,8(%r8)
        stg   %r0,16(%r8)
        sllg  %r8,%r7,8
        la    %r8,0(%r8,%r11)
        lg    %r2,0(%r8)
        aghi  %r2,1
        stg   %r2,0(%r8)
        lgr   %r0,%r3                          # D
        aghi  %r0,SLACK
        mghi  %r0,100
        msg   %r0,0xf28
        lgr   %r1,%r4
        mghi  %r1,98
        sgr   %r0,%r1
        cghi  %r2,1
        je    1f
        cg    %r0,8(%r8)
        jnl   2f
1:      stg   %r0,8(%r8)
        stg   %r3,0x10(%r8)
        stg   %r4,0x18(%r8)
        mvc   0x20(8,%r8),0xf58
2:      lgr   %r0,%r3                          # U
        aghi  %r0,-SLACK
        msg   %r0,0xf28
        sgr   %r0,%r4
        cghi  %r2,1
        je    3f
        cg    %r0,0x40(%r8)
        jnh   4f
3:      stg   %r0,0x40(%r8)
        stg   %r3,0x48(%r8)
        stg   %r4,0x50(%r8)
4:      cghi  %r2,1                            # fewest and most entries
        je    41f
        clg   %r3,0xb0(%r8)
        jnl   42f
41:     stg   %r3,0xb0(%r8)
42:     clg   %r3,0xb8(%r8)
        jnh   43f
        stg   %r3,0xb8(%r8)
43:     lg    %r0,0x28(%r8)
        agr   %r0,%r3
        stg   %r0,0x28(%r8)
        lg    %r0,0x30(%r8)
        agr   %r0,%r4
        stg   %r0,0x30(%r8)
        lg    %r0,0x38(%r8)
        ag    %r0,0xf60
        stg   %r0,0x38(%r8)
        ltgr  %r3,%r3
        jnz   5f
        lg    %r0,0x58(%r8)
        aghi  %r0,1
        stg   %r0,0x58(%r8)
5:      lg    %r0,0x60(%r8)
        ag    %r0,0xf68
        stg   %r0,0x60(%r8)
        lg    %r0,0x68(%r8)
        ag    %r0,0xf70
        stg   %r0,0x68(%r8)
        br    %r14

# Kind 5: the first update process finds an invalid entry address (uses r0-r8).
alertk: lgr   %r5,%r14                         # (mark returns through r14)
        lghi  %r7,5
        sllg  %r8,%r7,8
        la    %r8,0(%r8,%r11)                  # its record
        lg    %r0,0(%r8)
        aghi  %r0,1
        stg   %r0,0(%r8)
        ni    0xf27,0xdf                       # CR0 bit 58 off
        lctlg %c0,%c0,0xf20
        xc    0xe00(64),0xe00
        mvc   0xe00(8),basic-data(%r12)
        mvc   0xe08(8),0xf28
        lg    %r6,0xf30
        agfi  %r6,0x500000                     # the table
        la    %r1,0xff8(%r6)
        stg   %r1,0xe10                        # TEAR: its last entry before 4 KB
        llilf %r1,0x4010000                    # DEAR beyond main storage (odd rounds)
        tmll  %r9,1
        jo    1f
        lgr   %r1,%r6
        agfi  %r1,0x1fe0                       # DEAR inside the block's trailer
1:      stg   %r1,0xe18
        mvc   0xf40(8),0xe80
        lghi  %r4,0
        ecctr %r0,%r4
        stg   %r0,0xea0+40
        lsctl 0xe00
        jz    2f
        lg    %r0,0x70(%r8)
        aghi  %r0,1
        stg   %r0,0x70(%r8)
2:      stosm 0xf48,0x01
        SPIN
        lghi  %r7,5
        bras  %r14,mark
        lg    %r4,0xee0+40
        sg    %r4,0xea0+40
        lg    %r0,0x30(%r8)
        agr   %r0,%r4
        stg   %r0,0x30(%r8)
        qsi   0xf80
        tm    0xf83,0x02                       # Cs: still active?
        jz    3f
        lg    %r0,0x88(%r8)
        aghi  %r0,1
        stg   %r0,0x88(%r8)
        stg   %r4,0x18(%r8)                    # that spin's cycles
3:      clc   0xf98(16),0xe10                  # TEAR and DEAR as loaded
        je    4f
        lg    %r0,0xa0(%r8)
        aghi  %r0,1
        stg   %r0,0xa0(%r8)
4:      lgr   %r1,%r6                          # the block's last 64 bytes untouched
        agfi  %r1,0x1fc0
        oc    0(64,%r1),0(%r1)
        jz    5f
        lg    %r0,0xa8(%r8)
        aghi  %r0,1
        stg   %r0,0xa8(%r8)
        xc    0(64,%r1),0(%r1)
5:      mvc   0xf40(8),0xe80                   # unmask: the alert is presented
        oi    0xf27,0x20
        lctlg %c0,%c0,0xf20
        stosm 0xf48,0x01
        llilf %r1,WAITS
6:      clc   0xe80(8),0xf40
        jne   7f
        brctg %r1,6b
7:      stnsm 0xf48,0xfe
        lg    %r0,0xe80
        sg    %r0,0xf40
        cghi  %r0,1
        jne   8f
        clc   0xe88(8),iea-data(%r12)
        jne   8f
        lg    %r0,0x80(%r8)
        aghi  %r0,1
        stg   %r0,0x80(%r8)
        br    %r5
8:      lg    %r0,0x90(%r8)
        aghi  %r0,1
        stg   %r0,0x90(%r8)
        mvc   0x98(8,%r8),0xe88
        br    %r5

# Measurement alert (or any external interruption): count it, keep code and parameter.
extint2: stmg %r0,%r15,0xd00
        lg    %r1,0xe80
        aghi  %r1,1
        stg   %r1,0xe80
        llh   %r1,0x86
        sllg  %r1,%r1,32
        llgf  %r2,0x80
        ogr   %r1,%r2
        stg   %r1,0xe88
        lmg   %r0,%r15,0xd00
        lpswe 0x130

        .align 8
data:
ctls:   .quad 0x0000000000020002
extpsw: .quad 0x0000000180000000, extint2
idlepsw: .quad 0x0002000180000000, 0x1d1e
zero:   .quad 0, 0, 0, 0, 0, 0, 0, 0
basic:  .quad 0x4000000000000202               # H, Es, Cs
inactb: .quad 0x4000000000000200               # H, Es: basic inactive
inactd: .quad 0x4000000000000100               # H, Ed: diagnostic inactive
iea:    .quad 0x0000140780000000               # 1407, invalid entry address
        # entry size, blocks in the ring, format codes at +0 and +32 (0: none), LSCTL word 0
kinds:  .quad 32, 8
        .short 0x0001, 0
        .long 0
        .quad 0x4000000000000202
        .quad 32, 8
        .short 0x0001, 0
        .long 0
        .quad 0x4000000000000202
        .quad 32, 8
        .short 0x0001, 0
        .long 0
        .quad 0x4000000000000202
        .quad 64, 16
        .short 0x8001, 0
        .long 0
        .quad 0x4000000000000101
        .quad 96, 24
        .short 0x0001, 0x8001
        .long 0
        .quad 0x4000000000000303
        .quad 0, 0
        .short 0, 0
        .long 0
        .quad 0x4000000000000202
        .quad 32, 9
        .short 0x0001, 0
        .long 0
        .quad 0x4000000000000202
