# The sample-data-block update process step by step (SA23-2260, "Sample-Data-Block Update
# Process", "Process Steps", "Measurement Alert"), one scenario after another in one run.
#
# Each scenario (table `scen` below) gives the LSCTL request's word 0 (S, H, Es, Ed, Cs, Cd),
# the interval (0: the QSI minimum), TEAR, DEAR, how long to run (bit 0 of the word: stop at
# the first external interruption; low 32 bits: outer loops of 1,000 BRCTG at most) and a list
# of (address, doubleword) stores that build its tables and blocks. The engine builds them,
# activates sampling with the measurement alert enabled (CR0 bit 58, PSW external mask),
# spins, then records what a program can see and disables sampling (all-zero LSCTL, which
# also clears the pending sampling alerts before the next scenario).
#
# Record of scenario k at 0x3000 + k * 0x80:
#   +0x00 LSCTL cc (IPM word)           +0x08 external interruptions taken (doubleword)
#   +0x10 QSI bytes 0-3 when the spin ended (state controls as the update process left them)
#   +0x18 TEAR, +0x20 DEAR (QSI after deactivation; enabled, so the registers are shown)
#   +0x28 basic-set cycles while sampling  +0x30 STCKE before activation (16 bytes)
#   +0x40 the first four logged external interruptions (code << 32 | parameter)
#   +0x60 STCKE when the spin ended (16 bytes)
#   +0x70 QSI bytes 0-3 after the all-zero LSCTL  +0x78 program checks so far
#   0x4000: QSI at the start (64 bytes); 0x4040.. scratch
# 0x1000-0x1FFF is left zero: scenarios aim DEAR and TEAR there (addresses 0-8191 are invalid
# entry addresses) and the test checks nothing was stored.
        .include "lowcore.inc"
start:  j     main
        .org  0x2000
main:   lghi  %r13,0x3000
        larl  %r12,data
        lghi  %r10,0x4000                      # scratch
        qsi   0(%r10)
        lcctl ctls-data(%r12)
        stctg %c0,%c0,0x40(%r10)
        oi    0x47(%r10),0x20                  # CR0 bit 58: measurement alert
        lctlg %c0,%c0,0x40(%r10)
        larl  %r9,scen
        lgr   %r11,%r13
        lghi  %r4,0                             # ECCTR counter 0: cycles
next:   lg    %r0,0(%r9)
        cghi  %r0,-1
        je    finish
        la    %r8,40(%r9)                       # the stores
1:      lg    %r2,0(%r8)
        ltgr  %r2,%r2
        jz    2f
        lg    %r3,8(%r8)
        stg   %r3,0(%r2)
        la    %r8,16(%r8)
        j     1b
2:      la    %r8,8(%r8)                        # r8: the next scenario
        mvc   req-data(32,%r12),0(%r9)
        lg    %r0,8(%r9)
        ltgr  %r0,%r0
        jnz   3f
        mvc   req+8-data(8,%r12),8(%r10)    # the QSI minimum interval
3:      xc    0xbf8(8,%r13),0xbf8(%r13)                 # empty the external-interruption log
        stcke 0x30(%r11)
        ecctr %r7,%r4
        lsctl req-data(%r12)
        ipm   %r1
        st    %r1,0(%r11)
        stosm 0x48(%r10),0x01
        lg    %r5,32(%r9)
        llgfr %r5,%r5                           # outer loops
4:      llilf %r6,1000
5:      brctg %r6,5b
        tm    35(%r9),0x01                      # stop at the first interruption?
        jz    6f
        lg    %r0,0x3bf8
        ltgr  %r0,%r0
        jnz   7f
6:      brctg %r5,4b
7:      stnsm 0x48(%r10),0xfe
        qsi   0x80(%r10)
        mvc   0x10(4,%r11),0x80(%r10)
        ecctr %r1,%r4
        sgr   %r1,%r7
        stg   %r1,0x28(%r11)
        stcke 0x60(%r11)
        ni    req+7-data(%r12),0xfc             # Cs = Cd = 0: inactive, still enabled
        lsctl req-data(%r12)
        qsi   0x80(%r10)
        mvc   0x18(16,%r11),0x98(%r10)         # TEAR, DEAR
        lsctl zero-data(%r12)
        qsi   0x80(%r10)
        mvc   0x70(4,%r11),0x80(%r10)
        mvc   0x78(8,%r11),0x7f8(%r13)
        mvc   0x08(8,%r11),0xbf8(%r13)
        mvc   0x40(32,%r11),0xc00(%r13)
        la    %r11,0x80(%r11)
        lgr   %r9,%r8
        j     next
finish: DONE

        .align 8
data:
ctls:   .quad 0x0000000000020002
req:    .quad 0, 0, 0, 0, 0, 0, 0, 0
zero:   .quad 0, 0, 0, 0, 0, 0, 0, 0

        .set  BASIC, 0x4000000000000202         # H, Es, Cs
        .set  DIAG,  0x4000000000000101         # H, Ed, Cd
        .set  BOTH,  0x4000000000000303
        .set  SBIT,  0x8000000000000000
        .set  ALERT, 0x0000000100000000         # stop at the first interruption (bit 31)
        .set  RUN,   2000                       # outer loops of 1,000 BRCTG (~10 ms, ~200 samples)
        .set  RUN3,  6000                       # ~600 samples: two blocks of 63 DSDEs fill
        .set  ONCE,  ALERT + 20000              # at most ~20 M BRCTG waiting for the alert
        .set  TA,    0x5f00000000000000         # trailer word 0: A, reserved bits 3-7 set
        .set  T0,    0x1f00000000000000         # trailer word 0: no A, reserved bits 3-7 set
        .set  PAT,   0x5a5a5a5a5a5a5a5a
        .macro SCEN flags, interval, tear, dear, run
        .quad \flags, \interval, \tear, \dear, \run
        .endm
        .macro SET addr, val
        .quad \addr, \val
        .endm
        .macro END
        .quad 0
        .endm
        # Scenario areas: 0x100000 * (k + 1): table at +0, SDBs at +0x10000, +0x11000, +0x12000.
scen:
        # 0 Block full with A = 1: program-request alert; F, T, sizes, timestamp in the trailer;
        #   reserved trailer bits and programming bytes unchanged; the next table entry.
        SCEN  BASIC, 0, 0x100000, 0x110fa0, ONCE
        SET   0x100000, 0x110000
        SET   0x100008, 0x111000
        SET   0x100010, 0x100001
        SET   0x110fc0, TA | 0x0012345600000000
        SET   0x110fe0, PAT
        SET   0x110ff0, PAT
        SET   0x110ff8, PAT
        END
        # 1 The next block is still full: samples are discarded and counted in its overflow
        #   count (A = 0: no alert).
        SCEN  BASIC, 0, 0x200000, 0x210fa0, RUN
        SET   0x200000, 0x210000
        SET   0x200008, 0x211000
        SET   0x200010, 0x200001
        SET   0x210fc0, T0
        SET   0x211fc0, 0x8000000000000000
        SET   0x211fc8, 5
        END
        # 2 Table links: bits 60-62 of a table-link entry and 52-62 of a block-link entry are
        #   ignored; the table link leads to a second table.
        SCEN  BASIC, 0, 0x300000, 0x310fa0, ONCE
        SET   0x300000, 0x310000
        SET   0x300008, 0x300a5f
        SET   0x300a50, 0x3117fe
        SET   0x300a58, 0x300001
        SET   0x310fc0, TA
        END
        # 3 A table link designating a table link: incorrect SDBT entry; both active functions
        #   (combined entries) become inactive.
        SCEN  BOTH, 0, 0x400000, 0x410f60, ONCE
        SET   0x400000, 0x410000
        SET   0x400008, 0x400101
        SET   0x400100, 0x400201
        SET   0x400200, 0x411000
        SET   0x410fc0, T0
        END
        # 4 The last entry before the table crosses a 4-KB boundary is a block link: incorrect
        #   SDBT entry.
        SCEN  BASIC, 0, 0x500ff0, 0x510fa0, ONCE
        SET   0x500ff0, 0x510000
        SET   0x500ff8, 0x511000
        SET   0x501000, 0x500ff1
        SET   0x510fc0, T0
        END
        # 5 DEAR in 0-8191: invalid entry address, nothing stored.
        SCEN  BASIC, 0, 0x600000, 0x1fa0, ONCE
        SET   0x600000, 0x610000
        SET   0x600008, 0x600001
        END
        # 6 DEAR inside the trailer entry: invalid entry address, the trailer unchanged.
        SCEN  BASIC, 0, 0x700000, 0x710fd0, ONCE
        SET   0x700000, 0x710000
        SET   0x700008, 0x700001
        SET   0x710fc0, TA
        SET   0x710fd0, PAT
        END
        # 7 DEAR beyond main storage (64 MB): invalid entry address.
        SCEN  BASIC, 0, 0x800000, 0x8000100, ONCE
        SET   0x800000, 0x810000
        SET   0x800008, 0x800001
        END
        # 8 A block link beyond main storage: the full block is marked, then invalid entry
        #   address.
        SCEN  BASIC, 0, 0x900000, 0x910fa0, ONCE
        SET   0x900000, 0x910000
        SET   0x900008, 0x8000000
        SET   0x900010, 0x900001
        SET   0x910fc0, T0
        END
        # 9 The next table entry in 0-8191 (TEAR 0x1ff0): invalid entry address.
        SCEN  BASIC, 0, 0x1ff0, 0xa10fa0, ONCE
        SET   0xa10fc0, T0
        END
        # 10 A table link beyond main storage: invalid entry address.
        SCEN  BASIC, 0, 0xb00000, 0xb10fa0, ONCE
        SET   0xb00000, 0xb10000
        SET   0xb00008, 0x8000001
        SET   0xb10fc0, T0
        END
        # 11 S = 1: 1-MB blocks: entries run across 4-KB boundaries (no trailer at +0xfc0).
        SCEN  BASIC | SBIT, 0, 0x1f00000, 0x2000f80, RUN
        SET   0x1f00000, 0x2000000
        SET   0x1f00008, 0x2100000
        SET   0x1f00010, 0x1f00001
        END
        # 12 S = 1: a 1-MB block fills: trailer in its last 64 bytes; block-link bits 44-62
        #    ignored.
        SCEN  BASIC | SBIT, 0, 0x2700000, 0x22fffa0, ONCE
        SET   0x2700000, 0x2200000
        SET   0x2700008, 0x23ff000
        SET   0x2700010, 0x2700001
        SET   0x22fffc0, TA
        END
        # 13 Diagnostic sampling alone: DSDES-byte entries with format 8001.
        SCEN  DIAG, 0, 0x2400000, 0x2410000, RUN3
        SET   0x2400000, 0x2410000
        SET   0x2400008, 0x2411000
        SET   0x2400010, 0x2400001
        END
        # 14 Combined entries never split: 64 bytes left after the first one, so the second
        #    goes whole into the next block.
        SCEN  BOTH, 0, 0x2500000, 0x2510f20, ONCE
        SET   0x2500000, 0x2510000
        SET   0x2500008, 0x2511000
        SET   0x2500010, 0x2500001
        SET   0x2510fc0, TA
        SET   0x2510f80, PAT
        SET   0x2510f88, PAT
        SET   0x2510f90, PAT
        SET   0x2510f98, PAT
        SET   0x2510fa0, PAT
        SET   0x2510fa8, PAT
        SET   0x2510fb0, PAT
        SET   0x2510fb8, PAT
        END
        .quad -1
