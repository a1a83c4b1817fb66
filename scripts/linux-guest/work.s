# A user-space workload for the Linux guest (static, no libc): `work N` is not needed,
# the counts are fixed so the guest test knows them.
#   hot:  90,000,000 BRCTGs     cold: 10,000,000 BRCTGs     then exit(0)
        .text
        .globl _start
_start: brasl %r14,hot
        brasl %r14,cold
        lghi  %r2,0
        svc   1                       # exit
        .globl hot
        .type hot,@function
hot:    llilf %r1,90000000
1:      brctg %r1,1b
        br    %r14
        .size hot,.-hot
        .globl cold
        .type cold,@function
cold:   llilf %r1,10000000
1:      brctg %r1,1b
        br    %r14
        .size cold,.-cold
