# MVS 3.8J's layout with three address spaces under S/370 DAT (4-KB pages, 64-KB segments),
# for the map of HIS's MVS awareness: jobs JOBA, JOBB and JOBC (ASIDs 2, 3, 4; ASVT entry 1,
# ASID 1, is available), each running its own program PGMA, PGMB, PGMC, all three loaded at
# the SAME virtual address X'20000' of their private areas, in different real frames.
#
# Virtual storage (the same in every address space but segment 2):
#   0x00000-0x0FFFF  nucleus (V=R): lowcore, this dispatcher, CVT, ASVT, ASCBs, job names,
#                    the active LPA queue, segment and page tables
#   0x10000-0x7FFFF  private area; segment 2 (0x20000-0x2FFFF) of each address space maps
#                    page 0x20000 (its program) and page 0x21000 (its LSQA: ASXB, TCB queue,
#                    job pack queue, extent list) to its own frames: JOBA 0x40000/0x41000,
#                    JOBB 0x50000/0x51000, JOBC 0x60000/0x61000
#   0x80000-0x9FFFF  CSA (V=R)
#   0xA0000-0xBFFFF  LPA (V=R): the LPA directory at 0xA0000 (CVTLPDIA) with PLPAMOD1,
#                    PLPAMOD2 and their alias PLPAALIA, then the PLPA modules; the MLPA
#                    module NIPMOD (a CDNIP CDE of the active LPA queue) at 0xB0000
#
# Each address space's TCB queue (ASXBFTCB -> TCBTCB -> ASXBLTCB): a job step TCB (0x21100,
# its own job step) and a subtask (0x21200, TCBJSTCB -> the job step). The job step's job
# pack queue: its program (major CDE, CDXLE, extent list: 256 bytes at 0x20000) and an alias
# (minor CDE, CDRLC) at the program's return, PGMxENT.
#
# The dispatcher runs ROUNDS rounds of the three jobs, each for a count of BCTs in its own
# program in a 50/30/20 split: for each it loads CR1 from the job's ASCBSTOR (purging the
# TLB), sets PSATOLD (its job step TCB) and PSAAOLD (its ASCB) as MVS's dispatcher does, and
# calls the program at X'20000'. Then a disabled wait with DAT still on.
#
# Around each call it reads its CPU's cycle and instruction counters (ECCTR, the basic
# counter set enabled by its own LCCTL; S/370 needs the operator's `archs=all`) and adds
# what the job used to the job's totals: the samples must fall in each job in proportion
# to its cycles (SA23-2260: the sampling interval is in CPU cycles), whatever CPI the host
# gives each job.
#   0x3000 + 16*n (n = 0, 1, 2 for JOBA, JOBB, JOBC): cycles, instructions (doublewords)
        .include "s370.inc"
        .set ROUNDS, 3000
        mvc   0x10(4,%r0),cvt-0x1000(%r12)    # FLCCVT
        lctl  %c0,%c0,cr0-0x1000(%r12)        # 4-KB pages, 64-KB segments
        l     %r4,jobs-0x1000(%r12)
        lctl  %c1,%c1,0x2c(%r4)               # CR1: JOBA's segment table (its ASCBSTOR)
        ptlb
        lcctl ctls-0x1000(%r12)               # the basic counter set: authorized, enabled
        lpsw  datpsw-0x1000(%r12)             # DAT on, on to `go`
go:     l     %r7,rounds-0x1000(%r12)
round:  la    %r2,jobs-0x1000(%r12)           # the job table: ASCB and count for each job
        la    %r3,3
        lr    %r5,%r13                        # the jobs' totals
job:    l     %r4,0(%r2)                      # the job's ASCB
        lctl  %c1,%c1,0x2c(%r4)               # CR1 = ASCBSTOR
        ptlb
        mvc   0x21c(4,%r0),tcb-0x1000(%r12)   # PSATOLD: its job step TCB
        st    %r4,0x224                       # PSAAOLD: its ASCB
        l     %r6,4(%r2)                      # BCT count of its share
        la    %r8,0
        ecctr %r9,%r8                         # cycles before (low word)
        la    %r8,1
        ecctr %r10,%r8                        # instructions before
        l     %r15,pgm-0x1000(%r12)
        balr  %r14,%r15                       # its program, at X'20000' in its own space
        la    %r8,0
        ecctr %r11,%r8                        # cycles after: the job's, modulo 2**32
        sr    %r11,%r9
        la    %r1,0(%r5)
        bal   %r14,add-0x1000(%r12)
        la    %r8,1
        ecctr %r11,%r8                        # instructions after
        sr    %r11,%r10
        la    %r1,8(%r5)
        bal   %r14,add-0x1000(%r12)
        la    %r5,16(%r5)
        la    %r2,8(%r2)
        bct   %r3,job-0x1000(%r12)
        bct   %r7,round-0x1000(%r12)
        lpsw  waitdat-0x1000(%r12)
add:    al    %r11,4(%r1)                     # the doubleword at R1 += R11
        st    %r11,4(%r1)
        bcr   12,%r14                         # no carry
        l     %r0,0(%r1)
        al    %r0,one-0x1000(%r12)
        st    %r0,0(%r1)
        br    %r14
        .align 8
ctls:   .long 0, 0x00020002                   # LCCTL: basic set authorized (A) and enabled (E)
one:    .long 1
        .align 8
datpsw: .long 0x04080000, go                  # EC mode, DAT on
waitdat: .long 0x040a0000, 0                  # disabled wait, DAT on
cr0:    .long 0x00800000
cvt:    .long 0x8000
rounds: .long ROUNDS
tcb:    .long 0x21100
pgm:    .long 0x20000
jobs:   .long 0x8800, 50000                   # JOBA: 50%
        .long 0x8900, 30000                   # JOBB: 30%
        .long 0x8a00, 20000                   # JOBC: 20%

# Segment tables (256 entries, CR1 length code 15) and page tables.
        .macro SEGTAB pt2
        .long 0xf0005000                      # segment 0: nucleus, V=R
        .long 1                               # segment 1: invalid
        .long 0x10000000+\pt2                 # segment 2: the private pages (2 entries)
        .rept 5
        .long 1
        .endr
        .long 0xf0005020, 0xf0005040          # segments 8-B: CSA and LPA, V=R
        .long 0xf0005060, 0xf0005080
        .rept 256-12
        .long 1
        .endr
        .endm
        .macro VRPT seg                       # a V=R page table: 16 entries
        .set pg, \seg*16
        .rept 16
        .short pg<<4
        .set pg, pg+1
        .endr
        .endm
        .org 0x4000
        SEGTAB 0x5100                         # JOBA: STOR 0x0F004000
        SEGTAB 0x5120                         # JOBB: STOR 0x0F004400
        SEGTAB 0x5140                         # JOBC: STOR 0x0F004800
        .org 0x5000
        VRPT 0
        VRPT 8
        VRPT 9
        VRPT 10
        VRPT 11
        .org 0x5100
        .short 0x40<<4, 0x41<<4               # JOBA's frames
        .org 0x5120
        .short 0x50<<4, 0x51<<4               # JOBB's
        .org 0x5140
        .short 0x60<<4, 0x61<<4               # JOBC's

# The CVT (FLCCVT is set by the code above).
        .org 0x8000+0x80
        .long 0x10000                         # CVTNUCB: nucleus 0-FFFF
        .org 0x8000+0xa4
        .long 0xffffff                        # CVTMZ00
        .org 0x8000+0xbc
        .long 0x8d00                          # CVTQLPAQ
        .org 0x8000+0x168
        .long 0xa0000                         # CVTLPDIA: LPA from 0xA0000
        .org 0x8000+0x1a0
        .long 0x80000                         # CVTSHRVM: private to 7FFFF, CSA from 80000
        .org 0x8000+0x22c
        .long 0x8400                          # CVTASVT
# ASVT: ASID 1 available, 2-4 the jobs.
        .org 0x8400+0x204
        .long 4                               # ASVTMAXU
        .org 0x8400+0x210
        .long 0x80000000, 0x8800, 0x8900, 0x8a00

# ASCBs: ASID, ASCBSTOR (the segment table), ASCBASXB (in the private area), job name.
        .macro ASCB at, asid, stor, name
        .org \at+0x24
        .short \asid
        .org \at+0x2c
        .long \stor
        .org \at+0x6c
        .long 0x21000                         # ASCBASXB
        .org \at+0xac
        .long \name                           # ASCBJBNI
        .endm
        ASCB 0x8800, 2, 0x0f004000, 0x8c00
        ASCB 0x8900, 3, 0x0f004400, 0x8c08
        ASCB 0x8a00, 4, 0x0f004800, 0x8c10
        .org 0x8c00
        .byte 0xd1,0xd6,0xc2,0xc1,0x40,0x40,0x40,0x40    # JOBA
        .byte 0xd1,0xd6,0xc2,0xc2,0x40,0x40,0x40,0x40    # JOBB
        .byte 0xd1,0xd6,0xc2,0xc3,0x40,0x40,0x40,0x40    # JOBC

# Active LPA queue: CVTQLPAQ -> 0x8D00 -> NIPMOD (CDNIP: MLPA) -> PLPAMOD1 (a PLPA module in
# use: in the directory too).
        .org 0x8d00
        .long 0x8d10
        .org 0x8d10
        .long 0x8d60, 0                       # CDCHAIN, CDRRBP
        .byte 0xd5,0xc9,0xd7,0xd4,0xd6,0xc4,0x40,0x40    # NIPMOD
        .long 0xb0000, 0x8d40                 # CDENTPT, CDXLMJP
        .long 0x00010000                      # CDUSE
        .byte 0xa0, 0x20, 0, 0                # CDATTR CDNIP+CDREN, CDATTR2 CDXLE
        .org 0x8d40
        .long 16, 1, 0x80000400, 0xb0000      # extent list: 1 KB at 0xB0000
        .org 0x8d60
        .long 0, 0
        .byte 0xd7,0xd3,0xd7,0xc1,0xd4,0xd6,0xc4,0xf1    # PLPAMOD1
        .long 0xa1000, 0x8d90
        .long 0x00010000
        .byte 0x20, 0x20, 0, 0                # CDATTR CDREN, CDATTR2 CDXLE
        .org 0x8d90
        .long 16, 1, 0x80000300, 0xa1000

# The three programs, in their own frames (virtual X'20000' in each address space).
        .macro PROGRAM
        bct   %r6,0(%r15)                     # the job's share of BCTs
        br    %r14
        .endm
# Each address space's LSQA page (virtual X'21000'): ASXB, TCBs, CDEs, extent list.
        .macro LSQA at, name, alias
        .org \at+0x4
        .long 0x21100, 0x21200                # ASXB: ASXBFTCB, ASXBLTCB
        .org \at+0x100+0x2c                   # 0x21100: the job step TCB
        .long 0x21300                         # TCBJPQ: its job pack queue
        .org \at+0x100+0x74
        .long 0x21200                         # TCBTCB: the subtask
        .org \at+0x100+0x7c
        .long 0x21100                         # TCBJSTCB: itself
        .org \at+0x200+0x7c                   # 0x21200: the subtask (TCBTCB zero)
        .long 0x21100                         # TCBJSTCB: the job step
        .org \at+0x300                        # 0x21300: the program's major CDE
        .long 0x21340, 0
        .byte \name
        .long 0x20000, 0x21400, 0x00010000
        .byte 0x20, 0x20, 0, 0                # CDATTR CDREN, CDATTR2 CDXLE
        .org \at+0x340                        # 0x21340: the alias, a minor CDE
        .long 0, 0
        .byte \alias
        .long 0x20004, 0x21300, 0x00010000
        .byte 0x04, 0x10, 0, 0                # CDATTR CDMIN, CDATTR2 CDRLC
        .org \at+0x400                        # 0x21400: the extent list
        .long 16, 1, 0x80000100, 0x20000
        .endm
        .org 0x40000
        PROGRAM
        LSQA 0x41000, "0xd7,0xc7,0xd4,0xc1,0x40,0x40,0x40,0x40", "0xd7,0xc7,0xd4,0xc1,0xc5,0xd5,0xe3,0x40"
        .org 0x50000
        PROGRAM
        LSQA 0x51000, "0xd7,0xc7,0xd4,0xc2,0x40,0x40,0x40,0x40", "0xd7,0xc7,0xd4,0xc2,0xc5,0xd5,0xe3,0x40"
        .org 0x60000
        PROGRAM
        LSQA 0x61000, "0xd7,0xc7,0xd4,0xc3,0x40,0x40,0x40,0x40", "0xd7,0xc7,0xd4,0xc3,0xc5,0xd5,0xe3,0x40"

# The LPA directory: PLPAMOD1 (0x300 bytes at 0xA1000), PLPAMOD2 (0x200 at 0xA1300), the
# alias PLPAALIA (entry point 0xA1008), and the X'FF' end.
        .org 0xa0000
        .long 0, 0
        .byte 0xd7,0xd3,0xd7,0xc1,0xd4,0xd6,0xc4,0xf1    # PLPAMOD1
        .long 0xa1000, 0, 0x00010000
        .byte 0x20, 0x20, 0, 0                # LPDEATTR LPDEREN, LPDEATT2 LPDEXLE
        .long 0x300, 0xa1000                  # its extent
        .long 0, 0
        .byte 0xd7,0xd3,0xd7,0xc1,0xd4,0xd6,0xc4,0xf2    # PLPAMOD2
        .long 0xa1300, 0, 0x00010000
        .byte 0x20, 0x20, 0, 0
        .long 0x200, 0xa1300
        .long 0, 0
        .byte 0xd7,0xd3,0xd7,0xc1,0xc1,0xd3,0xc9,0xc1    # PLPAALIA
        .long 0xa1008, 0, 0x00010000
        .byte 0x04, 0x10, 0, 0                # LPDEATTR LPDEMIN, LPDEATT2 LPDERLC
        .byte 0xd7,0xd3,0xd7,0xc1,0xd4,0xd6,0xc4,0xf1    # LPDEMJNM: its major
        .long 0, 0
        .byte 0xff,0xff,0xff,0xff,0xff,0xff,0xff,0xff    # the end
        .fill 32,1,0
        .org 0xa1000
        .fill 0x500,1,0x07                    # PLPAMOD1 and PLPAMOD2 (NOPRs)
        .org 0xb0000
        .fill 0x400,1,0x07                    # NIPMOD
