# hcpumf demo workload: three code regions with known shares of the CPU time,
#   HOTLOOP  (problem state)    50%   at 0x10000
#   WARMLOOP (supervisor state) 30%   at 0x20000
#   COOLLOOP (problem state)    20%   at 0x30000
# switching state about 400 times a second, for about 3 seconds, plus the MVS 3.8J control
# blocks that let the plugin's MVS awareness name the address space and the modules in the
# .MAP and in the samples' program parameter: the CVT with its storage boundaries, the ASVT
# with two ASCBs (*MASTER* and DEMOJOB), each with its ASXB and TCB queue (DEMOJOB: a job
# step and a subtask; no job pack queue: nothing is loaded into the private areas), the
# active LPA queue whose CDEs (NIP-loaded: MLPA) name the three modules with extent lists
# and an alias, the LPA directory (empty: just its end entry), PSATOLD/PSAAOLD. The control
# blocks are in the loaded image (only PSATOLD/PSAAOLD are set by the program), so a map
# taken at any time (MAPONLY) finds them whole. DAT is off, so virtual = real.
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

# ASXBs and TCB queues in the private area (0x4000-0x7FFF). *MASTER*: ASXB 0x6000, one TCB
# 0x6100 (its own job step). DEMOJOB: ASXB 0x6040, job step TCB 0x6200 -> (TCBTCB) subtask
# TCB 0x6300, whose TCBJSTCB names the job step. TCBJPQ zero: no job pack queue.
        .org 0x6000+0x4
        .long 0x6100, 0x6100                  # ASXBFTCB, ASXBLTCB
        .org 0x6040+0x4
        .long 0x6200, 0x6300                  # ASXBFTCB: the job step, ASXBLTCB: the subtask
        .org 0x6200+0x74
        .long 0x6300                          # TCBTCB: job step -> subtask
        .org 0x6300+0x7c
        .long 0x6200                          # TCBJSTCB: the job step
# The CVT.
        .org 0x8000+0x80
        .long 0x4000                          # CVTNUCB: nucleus 0-3FFF
        .org 0x8000+0xa4
        .long 0xffffff                        # CVTMZ00: 24-bit addressing
        .org 0x8000+0xbc
        .long 0x8a00                          # CVTQLPAQ -> 0x8A00 -> first CDE
        .org 0x8000+0x168
        .long 0x10000                         # CVTLPDIA: LPA (the three modules) from 10000
        .org 0x8000+0x1a0
        .long 0x8000                          # CVTSHRVM: private 4000-7FFF, CSA from 8000
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
# The active LPA queue: 0x8A00 -> CDEs at 0x8B00, 0x8B30, 0x8B60 (chained), extent lists at
# 0x8B90, 0x8BA0, 0x8BB0, and at 0x8BC0 a minor CDE (CDMIN): HOTENTRY, an alias entry point
# of HOTLOOP. The majors have CDATTR CDNIP (loaded by NIP: modified LPA) and CDATTR2 CDXLE
# (extent list built); the minor CDNIP and CDMIN, and CDRLC (its entry point relocated).
        .org 0x8a00
        .long 0x8b00
        .org 0x8b00
        .long 0x8b30, 0
        .byte 0xc8,0xd6,0xe3,0xd3,0xd6,0xd6,0xd7,0x40          # HOTLOOP
        .long 0x10000, 0x8b90, 0, 0x80200000, 0, 0, 0, 0
        .long 0x8b60, 0
        .byte 0xe6,0xc1,0xd9,0xd4,0xd3,0xd6,0xd6,0xd7          # WARMLOOP
        .long 0x20000, 0x8ba0, 0, 0x80200000, 0, 0, 0, 0
        .long 0x8bc0, 0
        .byte 0xc3,0xd6,0xd6,0xd3,0xd3,0xd6,0xd6,0xd7          # COOLLOOP
        .long 0x30000, 0x8bb0, 0, 0x80200000, 0, 0, 0, 0
        .long 16, 1, 0x80000100, 0x10000                       # HOTLOOP: 256 bytes
        .long 16, 1, 0x80000100, 0x20000                       # WARMLOOP
        .long 16, 1, 0x80000100, 0x30000                       # COOLLOOP
        .long 0, 0
        .byte 0xc8,0xd6,0xe3,0xc5,0xd5,0xe3,0xd9,0xe8          # HOTENTRY
        .long 0x10000, 0x8b00, 0, 0x84100000, 0, 0, 0, 0       # minor: CDNIP+CDMIN, CDRLC

# The PLPA begins with the LPA directory (CVTLPDIA = 0x10000). This system's modules are all
# in the modified LPA, so the directory is only its end entry: 40 bytes whose name (at +8)
# begins with X'FF'. HOTLOOP, placed at the start of the LPA, jumps over it with its first
# instruction, which lies in the entry's first 8 bytes (LPDECHN, LPDERBP: not read).
        .org 0x10000
hotloop: j    1f
        .long 0
        .byte 0xff,0xff,0xff,0xff,0xff,0xff,0xff,0xff          # LPDENAME: the end
        .org 0x10028
1:      llilf %r6,500000                      # HOTLOOP: 50%
2:      brctg %r6,2b
        jg    coolloop
        .org 0x20000
warmloop: brctg %r6,warmloop                  # WARMLOOP: 30% (count set by the caller)
        br    %r14
        .org 0x30000
coolloop: llilf %r6,200000                    # COOLLOOP: 20%
1:      brctg %r6,1b
        svc   0
