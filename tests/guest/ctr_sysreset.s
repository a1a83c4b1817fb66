# Hercules' manual resets and the counter facility (one CPU). The test's operator stops the
# CPU after round 1 and performs `sysreset` (system-reset-normal) or `sysclear` (clear
# reset; the program is loaded again), then restarts the CPU for round 2.
#
# Round 1 (phase word 0x33F0 = 0): enable and activate the basic, problem-state, crypto
#   and extended sets, set extended counter 128 to 0x1111, have the operator make a
#   counter-authorization-change alert pending (DIAGNOSE 8 `hcpumf inject caca cpu=0`) with
#   the external mask off, set the phase to 1 and end (disabled wait).
# Round 2 (phase 1): QCTRI, ECCTR 128 and ECCTR 1 around a loop, an external-mask-enabled
#   spin (is the alert still pending?), LCCTL enabling (not activating) every set and
#   ECCTR 128 again, then activating them and counting a loop; then an enabled wait (no
#   second disabled-wait message).
#
#   0x3000 round 1 condition codes: LCCTL, SCCTR
#   0x3100 QCTRI, 0x3140 ECCTR 128, 0x3150 / 0x3158 ECCTR 1 before / after a loop,
#   0x3160..0x3163 condition codes (ECCTR 128, ECCTR 1, ECCTR 1, ECCTR 128 after enabling;
#   0xFF until stored), 0x3168 external interruptions in the spin, 0x3170 ECCTR 128 after
#   enabling, 0x3178 instructions counted over 10000 loops once active again,
#   0x3200 round 2 done (not next to the phase word: the
#   operator's alter command echoes that line)
        .include "lowcore.inc"
        .macro CC off
        ipm   %r0
        srl   %r0,28
        stc   %r0,\off
        .endm
start:  lghi  %r13,0x3000
        lghi  %r12,0x1000
        l     %r0,0x3f0(%r13)
        chi   %r0,1
        je    round2
        mvc   0(2,%r13),ffs-0x1000(%r12)
        lcctl allsets-0x1000(%r12)
        CC    0(%r13)
        lghi  %r2,128
        lghi  %r6,0x1111
        scctr %r6,%r2
        CC    1(%r13)
        larl  %r2,cmd
        lghi  %r3,cmdend-cmd
        .insn rs,0x83000000,%r2,%r3,8       # DIAGNOSE 8: inject the alert
        mvhi  0x3f0(%r13),1
        DONE

round2: mvc   0x160(4,%r13),ffs-0x1000(%r12)
        qctri 0x100(%r13)
        lghi  %r2,128
        lghi  %r4,-1
        ecctr %r4,%r2
        CC    0x160(%r13)
        stg   %r4,0x140(%r13)
        lghi  %r2,1
        lghi  %r4,-1
        ecctr %r4,%r2
        CC    0x161(%r13)
        stg   %r4,0x150(%r13)
        llilf %r6,100000
1:      brctg %r6,1b
        lghi  %r4,-1
        ecctr %r4,%r2
        CC    0x162(%r13)
        stg   %r4,0x158(%r13)
        lg    %r5,0x3bf8
        stctg %c0,%c0,0x178(%r13)
        oi    0x17f(%r13),0x20                # CR0 bit 58: measurement alerts
        lctlg %c0,%c0,0x178(%r13)
        stosm 0x180(%r13),0x01
        llilf %r6,3000000                     # well under 1 s (four instructions a turn)
2:      lg    %r0,0x3bf8
        cgr   %r0,%r5
        jne   3f
        brctg %r6,2b
3:      stnsm 0x180(%r13),0xfe
        lg    %r0,0x3bf8
        sgr   %r0,%r5
        stg   %r0,0x168(%r13)
        lcctl enable-0x1000(%r12)
        lghi  %r2,128
        lghi  %r4,-1
        ecctr %r4,%r2
        CC    0x163(%r13)
        stg   %r4,0x170(%r13)
        # Active again: it counts from where it stands (Hercules zeroed its own count).
        lcctl allsets-0x1000(%r12)
        lghi  %r2,1
        ecctr %r4,%r2
        llilf %r6,10000
4:      brctg %r6,4b
        ecctr %r5,%r2
        sgr   %r5,%r4
        stg   %r5,0x178(%r13)
        mvhi  0x200(%r13),1
        lpswe idle-0x1000(%r12)

        .align 8
allsets: .quad 0x00000000000F000F
enable: .quad 0x00000000000F0000
idle:   .quad 0x0102000180000000, 0x1d1e    # enabled wait
ffs:    .fill 4,1,0xff
cmd:    .byte 0x88, 0x83, 0x97, 0xa4, 0x94, 0x86, 0x40, 0x89, 0x95, 0x91, 0x85, 0x83
        .byte 0xa3, 0x40, 0x83, 0x81, 0x83, 0x81, 0x40, 0x83, 0x97, 0xa4, 0x7e, 0xf0
cmdend:
