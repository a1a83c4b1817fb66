# hcpumf demo workload: three code regions with known shares of the CPU time,
#   HOTLOOP  (problem state)    50%   at 0x10000
#   WARMLOOP (supervisor state) 30%   at 0x20000
#   COOLLOOP (problem state)    20%   at 0x30000
# switching state about 400 times a second, 1.2 G instructions (3-7 s by the host), plus the
# MVS 3.8J control blocks that let the plugin's MVS awareness name the address space and the
# modules in the .MAP and in the samples' program parameter: the CVT with its storage
# boundaries (nucleus 0-FFFF, private area 10000-3FFFF where DEMOJOB's three programs are, CSA
# 40000-7FFFF, LPA from 80000), the ASVT with two ASCBs (*MASTER* and DEMOJOB), each with its
# ASXB and TCB queue (DEMOJOB: a job step and a subtask), DEMOJOB's job pack queue with the
# three programs (CDEs with extent lists) and an alias, the LPA directory with one pageable
# LPA module, the active LPA queue with one modified-LPA module, PSATOLD/PSAAOLD. The control
# blocks are in the loaded image (only PSATOLD/PSAAOLD are set by the program), so a map taken
# at any time (MAPONLY) finds them whole. DAT is off, so virtual = real.
        .text
        .org 0x10
        .long 0x8000                          # FLCCVT -> CVT at 0x8000
        .include "lowcore.inc"
        .set ROUNDS, 1200
start:  lghi  %r13,0x3000
        lghi  %r12,0x1000
        mvc   0x1c0(16),svcpsw-0x1000(%r12)   # SVC new PSW -> after the problem-state leg
        mvc   0x21c(4,%r0),tcb-0x1000(%r12)   # PSATOLD: DEMOJOB's job step TCB
        mvc   0x224(4,%r0),ascb-0x1000(%r12)  # PSAAOLD: DEMOJOB's ASCB
        # --- the workload ---------------------------------------------------------------
        lghi  %r7,ROUNDS
round:  llilf %r6,300000                      # WARMLOOP: 30%, supervisor
        brasl %r14,warmloop
        lpswe hot-0x1000(%r12)                # HOTLOOP then COOLLOOP in problem state
back:   brctg %r7,round
        DONE

        .align 8
svcpsw: .quad 0x0000000180000000, back
hot:    .quad 0x0001000180000000, 0x10000
tcb:    .long 0x6200
ascb:   .long 0x8900

# ASXBs and TCB queues. *MASTER*: ASXB 0x6000, one TCB 0x6100 (its own job step). DEMOJOB:
# ASXB 0x6040, job step TCB 0x6200 -> (TCBTCB) subtask TCB 0x6300, whose TCBJSTCB names the
# job step; the job step's TCBJPQ -> the job pack queue at 0x8B00.
        .org 0x6000+0x4
        .long 0x6100, 0x6100                  # ASXBFTCB, ASXBLTCB
        .org 0x6040+0x4
        .long 0x6200, 0x6300                  # ASXBFTCB: the job step, ASXBLTCB: the subtask
        .org 0x6200+0x2c
        .long 0x8b00                          # TCBJPQ: DEMOJOB's job pack queue
        .org 0x6200+0x74
        .long 0x6300                          # TCBTCB: job step -> subtask
        .org 0x6300+0x7c
        .long 0x6200                          # TCBJSTCB: the job step
# The CVT.
        .org 0x8000+0x80
        .long 0x10000                         # CVTNUCB: nucleus 0-FFFF
        .org 0x8000+0xa4
        .long 0xffffff                        # CVTMZ00: 24-bit addressing
        .org 0x8000+0xbc
        .long 0x8a00                          # CVTQLPAQ -> 0x8A00 -> first CDE
        .org 0x8000+0x168
        .long 0x80000                         # CVTLPDIA: the LPA directory, LPA from 80000
        .org 0x8000+0x1a0
        .long 0x40000                         # CVTSHRVM: private 10000-3FFFF, CSA from 40000
        .org 0x8000+0x22c
        .long 0x8400                          # CVTASVT -> ASVT at 0x8400
# The ASVT: ASID 1 and ASID 0x21.
        .org 0x8400+0x204
        .long 2                               # ASVTMAXU
        .org 0x8400+0x210
        .long 0x8800, 0x8900                  # ASVTENTY
# ASCB 1: *MASTER*, started (JBNS); ASCB 0x21: DEMOJOB, initiated (JBNI).
        .org 0x8800+0x24
        .short 1                              # ASCBASID
        .org 0x8800+0x6c
        .long 0x6000                          # ASCBASXB
        .org 0x8800+0xb0
        .long nm1                             # ASCBJBNS
        .org 0x8900+0x24
        .short 0x21
        .org 0x8900+0x6c
        .long 0x6040
        .org 0x8900+0xac
        .long nm2                             # ASCBJBNI
        .org 0x89c0
nm1:    .byte 0x5c,0xd4,0xc1,0xe2,0xe3,0xc5,0xd9,0x5c          # *MASTER*
nm2:    .byte 0xc4,0xc5,0xd4,0xd6,0xd1,0xd6,0xc2,0x40          # DEMOJOB
# The active LPA queue: 0x8A00 -> the CDE at 0x8C00 of MYSVC (modified LPA: CDATTR CDNIP,
# CDATTR2 CDXLE), 0x40 bytes at 0x80200, extent list at 0x8C40.
        .org 0x8a00
        .long 0x8c00
# DEMOJOB's job pack queue: CDEs at 0x8B00, 0x8B30, 0x8B60 (chained), extent lists at
# 0x8B90, 0x8BA0, 0x8BB0, and at 0x8BC0 a minor CDE (CDMIN): HOTENTRY, an alias entry point
# of HOTLOOP. The majors have CDATTR CDJPA and CDREN and CDATTR2 CDXLE (extent list built);
# the minor CDMIN and CDJPA, and CDRLC (its entry point relocated).
        .org 0x8b00
        .long 0x8b30, 0
        .byte 0xc8,0xd6,0xe3,0xd3,0xd6,0xd6,0xd7,0x40          # HOTLOOP
        .long 0x10000, 0x8b90, 0, 0x22200000, 0, 0, 0, 0
        .long 0x8b60, 0
        .byte 0xe6,0xc1,0xd9,0xd4,0xd3,0xd6,0xd6,0xd7          # WARMLOOP
        .long 0x20000, 0x8ba0, 0, 0x22200000, 0, 0, 0, 0
        .long 0x8bc0, 0
        .byte 0xc3,0xd6,0xd6,0xd3,0xd3,0xd6,0xd6,0xd7          # COOLLOOP
        .long 0x30000, 0x8bb0, 0, 0x22200000, 0, 0, 0, 0
        .long 16, 1, 0x80000100, 0x10000                       # HOTLOOP: 256 bytes
        .long 16, 1, 0x80000100, 0x20000                       # WARMLOOP
        .long 16, 1, 0x80000100, 0x30000                       # COOLLOOP
        .long 0, 0
        .byte 0xc8,0xd6,0xe3,0xc5,0xd5,0xe3,0xd9,0xe8          # HOTENTRY
        .long 0x10000, 0x8b00, 0, 0x06100000, 0, 0, 0, 0       # minor: CDMIN+CDJPA, CDRLC
        .org 0x8c00
        .long 0, 0
        .byte 0xd4,0xe8,0xe2,0xe5,0xc3,0x40,0x40,0x40          # MYSVC
        .long 0x80200, 0x8c40, 0, 0xa0200000, 0, 0, 0, 0
        .org 0x8c40
        .long 16, 1, 0x80000040, 0x80200                       # MYSVC: 0x40 bytes

        .org 0x10000
hotloop: llilf %r6,500000                     # HOTLOOP: 50%
1:      brctg %r6,1b
        jg    coolloop
        .org 0x20000
warmloop: brctg %r6,warmloop                  # WARMLOOP: 30% (count set by the caller)
        br    %r14
        .org 0x30000
coolloop: llilf %r6,200000                    # COOLLOOP: 20%
1:      brctg %r6,1b
        svc   0

# The LPA directory (CVTLPDIA = 0x80000): one major LPDE, IEFBR14 (pageable LPA, 0x10 bytes
# at 0x80100: LPDEXLE, extent inline at +X'20'), then the end entry, whose name begins X'FF'.
        .org 0x80000
        .long 0, 0
        .byte 0xc9,0xc5,0xc6,0xc2,0xd9,0xf1,0xf4,0x40          # IEFBR14
        .long 0x80100, 0, 0, 0x20200000, 0x10, 0x80100
        .long 0, 0
        .byte 0xff,0xff,0xff,0xff,0xff,0xff,0xff,0xff
        .org 0x80300
