# A CPACF workload for the Linux guest (static, no libc): 1,000 KIMD-SHA-256 calls, each
# over 64 KB of zeros (repeated while KIMD ends with cc 3, partial completion), then
# exit(0). The guest test expects cpum_cf/SHA_FUNCTIONS/ to count at least 1,000.
        .text
        .globl _start
_start: larl  %r1,param
        larl  %r6,buf
        lghi  %r7,1000
1:      lgr   %r2,%r6
        llilf %r3,65536
        lghi  %r0,2                           # KIMD-SHA-256
2:      kimd  %r0,%r2
        jo    2b
        brctg %r7,1b
        lghi  %r2,0
        svc   1                               # exit
        .data
        .align 8
param:  .long 0x6a09e667,0xbb67ae85,0x3c6ef372,0xa54ff53a
        .long 0x510e527f,0x9b05688c,0x1f83d9ab,0x5be0cd19
        .bss
        .align 4096
buf:    .skip 65536
