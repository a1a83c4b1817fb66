# STFLE with room for 3 doublewords: facilities 40, 67, 68 and 142 are installed.
        .include "lowcore.inc"
start:  lghi  %r13,0x3000             # results base
        la    %r0,2
        stfle 0(%r13)
        stg   %r0,0x20(%r13)          # R0 after STFLE: doublewords needed - 1
        ipm   %r1
        st    %r1,0x28(%r13)          # condition code
        DONE
