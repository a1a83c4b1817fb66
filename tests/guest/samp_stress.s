# Sampling stress, NUMCPU 4, the way Linux's cpum_sf drains (SA23-2260 Trailer Entries,
# programming note): every CPU samples at 10,000 samples/s into its own ring of 32 SDBs
# with A = 1, and on every program-request alert walks its blocks from its own pointer while
# F = 1: counts and checks the entries, adds the overflow count, zeroes the format codes and
# resets the trailer header with COMPARE DOUBLE AND SWAP (F = 0, A = 1, overflow = 0) while
# sampling goes on. When a CPU has stored 30,000 samples it deactivates sampling, drains
# what is left (full blocks and the partial one) and records its cycle count.
#
# Per CPU (address a): prefix area 0x300000 + a * 0x2000, data 0x400000 + a * 0x100000
# (SDBT at +0, SDBs at +0x1000 ...), results at 0x3000 + a * 0x40:
#   +0x00 valid entries, +0x08 overflow total, +0x10 bad entries (format, I bit, address),
#   +0x18 basic cycles while sampling, +0x20 blocks drained, +0x28 alerts taken,
#   +0x30 blocks out of table order
# In the prefix area (real): 0xE00 data base, 0xE08 drain pointer (SDBT entry), 0xE10
# results address, 0xE18 expected next SDB origin.
        .include "lowcore.inc"
        .set  NSDB, 32
        .set  TARGET, 30000
start:  lghi  %r13,0x3000
        lghi  %r12,0x1000
        lghi  %r1,1
        laa   %r8,%r1,0x110(%r13)          # ticket: a private STAP slot
        sllg  %r8,%r8,3
        la    %r8,0x180(%r8,%r13)
        stap  0(%r8)
        llgh  %r10,0(%r8)                  # CPU address
        mvc   0x1b0(16),extpsw-0x1000(%r12)  # external new PSW -> alert (same for all)
        # Copy the 8-KB prefix area to this CPU's own and switch to it.
        sllg  %r1,%r10,3
        la    %r1,0x200(%r1,%r13)          # this CPU's slot for the SPX operand
        OWN_PREFIX 0x300000, %r10, 0(%r1)
        # Per-CPU variables.
        llilf %r11,0x400000
        sllg  %r3,%r10,20
        agr   %r11,%r3                     # data base
        stg   %r11,0xe00
        stg   %r11,0xe08                   # drain pointer: SDBT entry 0
        sllg  %r3,%r10,6
        la    %r3,0(%r3,%r13)
        stg   %r3,0xe10                    # results
        # SDBT: NSDB block links, then a link back to the table; trailers with A = 1.
        lgr   %r2,%r11
        agfi  %r2,0x1000
        lghi  %r5,NSDB
        lgr   %r4,%r11
2:      stg   %r2,0(%r4)
        mvi   0xfc0(%r2),0x40
        aghi  %r4,8
        agfi  %r2,0x1000
        brctg %r5,2b
        lgr   %r2,%r11
        oill  %r2,1
        stg   %r2,0(%r4)
        lgr   %r2,%r11
        agfi  %r2,0x1000
        stg   %r2,0xe18                    # next SDB expected
        # Counters (basic set) and sampling.
        lcctl ctls-0x1000(%r12)
        lghi  %r4,0
        ecctr %r9,%r4                      # cycles at start
        mvc   0xe40(64),req-0x1000(%r12)   # request block in the prefix area (private)
        stg   %r11,0xe50                   # TEAR
        lgr   %r2,%r11
        agfi  %r2,0x1000
        stg   %r2,0xe58                    # DEAR
        lsctl 0xe40
        stctg %c0,%c0,0xe20
        oi    0xe27,0x20                   # CR0 bit 58
        lctlg %c0,%c0,0xe20
        stosm 0xe28,0x01
        lg    %r3,0xe10
        # The sampled loop.
work:   llilf %r6,100000
loop:   brctg %r6,loop
        lg    %r0,0(%r3)
        cfi   %r0,TARGET
        jl    work
        stnsm 0xe28,0xfe
        # Deactivate (Es = 1, Cs = 0), then drain: full blocks, then the partial one.
        mvi   0xe47,0
        lsctl 0xe40
        ecctr %r7,%r4
        sgr   %r7,%r9
        stg   %r7,0x18(%r3)
        bras  %r14,drain
        qsi   0xe80
        lg    %r2,0xea0                    # DEAR
        lgr   %r5,%r2
        nill  %r5,0xf000                   # its block
3:      clgr  %r5,%r2
        jnl   4f
        bras  %r14,entry
        aghi  %r5,32
        j     3b
4:      lsctl zero-0x1000(%r12)
        lghi  %r1,1
        laa   %r0,%r1,0x100(%r13)          # one more CPU done
        ltr   %r10,%r10
        jnz   idle
5:      l     %r0,0x100(%r13)
        chi   %r0,4
        jl    5b
        spx   zero-0x1000(%r12)            # back to prefix 0 for the harness
        DONE
idle:   lpswe idlepsw-0x1000(%r12)

# Measurement alert: drain, count the alert, resume.
alert:  stmg  %r0,%r15,0xd00
        lg    %r3,0xe10
        lg    %r0,0x28(%r3)
        aghi  %r0,1
        stg   %r0,0x28(%r3)
        bras  %r14,drain
        lmg   %r0,%r15,0xd00
        lpswe 0x130

# Walk from the drain pointer while F = 1 (uses r0-r8; r3 = results).
drain:  lgr   %r8,%r14
        lg    %r3,0xe10
6:      lg    %r7,0xe08                    # SDBT entry address
        lg    %r6,0(%r7)
        tmll  %r6,1
        jz    7f
        nill  %r6,0xfff0                   # table link: continue at the table origin
        stg   %r6,0xe08
        j     6b
7:      nill  %r6,0xf000                   # SDB origin
        tm    0xfc0(%r6),0x80
        jz    9f
        clg   %r6,0xe18                    # blocks must come in table order
        je    71f
        lg    %r0,0x30(%r3)
        aghi  %r0,1
        stg   %r0,0x30(%r3)
71:     lgr   %r5,%r6
8:      lgr   %r0,%r6
        agfi  %r0,0xfc0
        clgr  %r5,%r0
        jnl   81f
        lh    %r0,0(%r5)
        ltr   %r0,%r0
        jz    81f
        bras  %r14,entry
        aghi  %r5,32
        j     8b
81:     lg    %r0,0x08(%r3)
        alg   %r0,0xfc8(%r6)               # overflow count
        stg   %r0,0x08(%r3)
        lmg   %r0,%r1,0xfc0(%r6)           # reset the header with CDSG
82:     lgr   %r4,%r0
        nihh  %r4,0x7fff                   # F = 0
        oihh  %r4,0x4000                   # A = 1
        lghi  %r5,0                        # overflow = 0
        cdsg  %r0,%r4,0xfc0(%r6)
        jl    82b
        lg    %r0,0x20(%r3)
        aghi  %r0,1
        stg   %r0,0x20(%r3)
        aghi  %r7,8                        # next table entry
        stg   %r7,0xe08
        lg    %r0,0(%r7)                   # expected next SDB (through a link)
        tmll  %r0,1
        jz    83f
        nill  %r0,0xfff0
        lgr   %r1,%r0
        lg    %r0,0(%r1)
83:     nill  %r0,0xf000
        stg   %r0,0xe18
        j     6b
9:      br    %r8

# Check and count the entry at r5 (r3 = results), then zero its format code.
entry:  lh    %r0,0(%r5)
        chi   %r0,1
        jne   bad
        tm    3(%r5),0x01                  # I
        jo    bad
        lghi  %r1,0x1000                   # instruction address in this program
        clg   %r1,8(%r5)
        jh    bad
        larl  %r1,progend
        clg   %r1,8(%r5)
        jh    good
bad:    lg    %r0,0x10(%r3)
        aghi  %r0,1
        stg   %r0,0x10(%r3)
        j     10f
good:   lg    %r0,0(%r3)
        aghi  %r0,1
        stg   %r0,0(%r3)
10:     xc    0(2,%r5),0(%r5)
        br    %r14

        .align 8
ctls:   .quad 0x0000000000020002
extpsw: .quad 0x0000000180000000, alert
idlepsw: .quad 0x0002000180000000, 0x1d1e
zero:   .quad 0, 0, 0, 0, 0, 0, 0, 0
req:    .quad 0x4000000000000202, 440400, 0, 0
        .quad 0, 0, 0, 0
progend:
