# An S/370 (MVS 3.8J's architecture) guest with the MVS control blocks HIS's MVS awareness
# reads, all built statically (DAT off, so virtual = real; ASCBSTOR is not used): PSA
# FLCCVT -> CVT (storage boundaries, CVTASVT, CVTLPDIA) -> ASVT -> the ASCB of ASID 1F, job
# S370JOB -> ASCBASXB -> ASXB -> its TCB queue: one job step TCB whose job pack queue has
# LOOPMOD (0x2000-0x20FF); the LPA directory (only its X'FF' end entry); PSATOLD -> that
# TCB; PSAAOLD -> that ASCB. The program runs LOOPMOD's loop of 100,000,000 BCTs and enters
# a disabled wait.
        .text
        .org 0
        .long 0x00080000, start               # restart new PSW (EC mode)
        .org 0x10
        .long 0x8000                          # FLCCVT
        .org 0x21c
        .long 0x8a00                          # PSATOLD
        .org 0x224
        .long 0x8800                          # PSAAOLD
        .org 0x1000
start:  la    %r12,0x800
        la    %r12,0x800(%r12)
        la    %r12,0x800(%r12)
        la    %r12,0x800(%r12)                # R12 = 0x2000 (LOOPMOD's base)
        b     0(%r12)
        .org 0x2000
loopmod: l    %r6,count-loopmod(%r12)
lp:     bct   %r6,lp-loopmod(%r12)
        lpsw  waitpsw-loopmod(%r12)
        .align 8
waitpsw: .long 0x000a0000, 0
count:  .long 100000000
        .org 0x8000+0x80
        .long 0x4000                          # CVTNUCB
        .org 0x8000+0xa4
        .long 0xffffff                        # CVTMZ00
        .org 0x8000+0x168
        .long 0x10000                         # CVTLPDIA
        .org 0x8000+0x1a0
        .long 0x9000                          # CVTSHRVM
        .org 0x8000+0x22c
        .long 0x8400                          # CVTASVT
        .org 0x8400+0x204
        .long 1                               # ASVTMAXU
        .org 0x8400+0x210
        .long 0x8800                          # ASVTENTY[0]
        .org 0x8800+0x24
        .short 0x1f                           # ASCBASID
        .org 0x8800+0x6c
        .long 0x8c00                          # ASCBASXB
        .org 0x8800+0xac
        .long 0x8900                          # ASCBJBNI
        .org 0x8900
        .byte 0xe2,0xf3,0xf7,0xf0,0xd1,0xd6,0xc2,0x40    # S370JOB
        .org 0x8a00+0x2c
        .long 0x8b00                          # TCBJPQ
        .org 0x8a00+0x74
        .long 0                               # TCBTCB: no other TCB
        .org 0x8a00+0x7c
        .long 0x8a00                          # TCBJSTCB: the job step TCB itself
        .org 0x8b00+0x8
        .byte 0xd3,0xd6,0xd6,0xd7,0xd4,0xd6,0xc4,0x40    # LOOPMOD
        .long 0x2000, 0x8b40                  # CDENTPT, CDXLMJP
        .org 0x8b00+0x1c
        .byte 0x20, 0x20                      # CDATTR CDREN, CDATTR2 CDXLE
        .org 0x8b40+0x8
        .long 0x80000100, 0x2000              # extent list: 256 bytes at 0x2000
        .org 0x8c00+0x4
        .long 0x8a00, 0x8a00                  # ASXBFTCB, ASXBLTCB: the one TCB
        .org 0x10000+0x8
        .byte 0xff,0xff,0xff,0xff,0xff,0xff,0xff,0xff    # LPA directory: the end entry
