/* hcpumf: interface between the thin Hercules glue (C) and the Rust core.
 *
 * The glue decodes operands, performs DAT and storage access with Hercules' own macros and
 * presents interruptions; every architectural decision is made by the Rust functions declared
 * in include/hcpumf.h. This header is read by bindgen to give Rust the same layouts. */
#ifndef HCPUMF_GLUE_H
#define HCPUMF_GLUE_H

#include <stdint.h>

#define HCPUMF_MAX_CPU 64
/* Largest store an instruction makes: STCCTM of a full extended set (160 counters). */
#define HCPUMF_MAX_STORE 1280

/* The issuing CPU at an instruction boundary (see crates/arch/src/cpu.rs, CpuView). */
typedef struct hcpumf_view {
    uint16_t cpu;
    uint8_t arch;       /* 0 S/370, 1 ESA/390, 2 z/Architecture */
    uint8_t problem;    /* PSW P */
    uint8_t wait;       /* PSW W */
    uint8_t dat;        /* PSW T */
    uint8_t asc;        /* PSW AS */
    uint8_t ext_mask;   /* PSW external mask */
    uint8_t ext_higher; /* an external interruption of higher priority than the measurement
                           alert is pending and enabled (Hercules takes it first) */
    uint8_t ilen;       /* instruction length */
    uint8_t m3;         /* M3 field (STCCTM) */
    uint8_t inst[6];    /* instruction text */
    uint64_t ia;        /* address of the instruction */
    uint64_t cr0;
    uint64_t cr4;
    uint64_t instcount; /* Hercules' running instruction count (regs->instcount) */
    uint64_t prevcount; /* instructions folded in by Hercules' timer (regs->prevcount) */
    uint64_t waitsig;   /* time the CPU has waited, ns (regs->waittime; it changes whenever
                           the CPU waited) */
    uint64_t tod;       /* TOD clock bits 0-63 */
    uint64_t r1;        /* contents of the R1 register operand */
    uint64_t r2;        /* contents of the R2 register operand */
    uint64_t addr;      /* second-operand address */
    uint64_t prefix;    /* prefix register: absolute address of the CPU's PSA */
    uint64_t cr1;       /* control register 1 (segment-table designation) */
    uint8_t timer_due;  /* set by the tick only: as hcpumf_peek's */
} hcpumf_view;

/* What the glue must do after an instruction (filled in by hcpumf_execute). */
typedef struct hcpumf_result {
    uint16_t pgm;       /* program-interruption code, 0 for none */
    int8_t cc;          /* condition code to set, -1 to leave it */
    uint8_t set_r1;     /* 1: load r1 into general register R1 */
    uint64_t r1;
    uint32_t store_len; /* bytes of `store` to store at the second-operand address */
    uint8_t store[HCPUMF_MAX_STORE];
} hcpumf_result;

/* A running CPU as a basic-sampling data entry describes it, read from the sampler thread
 * (see hcpumf_host.peek). */
typedef struct hcpumf_peek {
    uint8_t arch;       /* 0 S/370, 1 ESA/390, 2 z/Architecture */
    uint8_t problem;    /* PSW P */
    uint8_t dat;        /* PSW T */
    uint8_t asc;        /* PSW AS */
    uint64_t ia;        /* address of the instruction the CPU is at */
    uint64_t cr0;
    uint64_t cr1;       /* control register 1 (segment-table designation) */
    uint64_t cr4;       /* control register 4 (primary ASN) */
    uint64_t prefix;    /* prefix register */
    uint64_t instcount; /* regs->instcount */
    uint64_t prevcount; /* regs->prevcount */
    uint8_t timer_due;  /* a CPU-timer or clock-comparator interruption the CPU is enabled
                         * for is pending or due (Hercules' timer thread makes it pending
                         * at its next run); read only for an accounting point */
} hcpumf_peek;

/* A CPU as the sampler thread reads it for the samples of a dedicated CPU in the wait state
 * (see hcpumf_host.peek_wait). */
typedef struct hcpumf_wait_peek {
    uint8_t waiting;    /* blocked in Hercules' wait with a wait PSW (the PSW fields below
                         * are that PSW's) */
    uint8_t arch;       /* 0 S/370, 1 ESA/390, 2 z/Architecture */
    uint8_t problem;    /* PSW P */
    uint8_t dat;        /* PSW T */
    uint8_t asc;        /* PSW AS */
    uint64_t waited_ns; /* time the CPU has waited (Hercules' regs->waittime, with the wait
                         * in progress), ns: waitsig's unit */
    uint64_t cr0;
    uint64_t cr1;
    uint64_t cr4;
    uint64_t prefix;
    uint64_t instcount; /* regs->instcount */
    uint64_t prevcount; /* regs->prevcount */
} hcpumf_wait_peek;

/* How the sampler thread arms a CPU (hcpumf_host.arm): which entries of the CPU's opcode
 * table are made to call the tick. */
typedef enum hcpumf_arm_mode {
    /* Only the entries of the instruction the CPU is executing and of the one after it, read
     * from its instruction pointer: a loop meets the first again within an iteration,
     * straight-line code the second at once. */
    HCPUMF_ARM_PREDICTED = 0,
    /* Every entry: the CPU runs the tick at its next instruction (a prediction failed). */
    HCPUMF_ARM_EVERY = 1,
    /* Every entry again, even where every entry was trapped before: the CPU's thread ran on
     * through an arming without a tick, so something put entries back. */
    HCPUMF_ARM_AGAIN = 2
} hcpumf_arm_mode;

/* Services of the glue that the Rust core calls (from any thread unless noted). */
typedef struct hcpumf_host {
    /* Write one console line (no trailing newline needed). */
    void (*log)(const char *line);
    /* Guest main storage origin and size in bytes. */
    uint8_t *(*mainstor)(uint64_t *size);
    /* Obtain (1) / release (0) the main-storage lock that serializes guest CDSG. */
    void (*mainlock)(int obtain);
    /* Set the reference and change bits of the frame holding an absolute address. */
    void (*mark_changed)(uint64_t abs);
    /* Make CPU `cpu` call hcpumf_tick at an instruction boundary soon (see
     * hcpumf_arm_mode). 0 = armed (or still armed). */
    int (*arm)(uint16_t cpu, hcpumf_arm_mode mode);
    /* Present a pending measurement alert to `cpu` if it sits in an enabled wait. */
    void (*kick_waiting)(uint16_t cpu);
    /* CPU-ID machine type (STIDP). */
    uint16_t (*machine_type)(void);
    /* Is CPU `cpu` configured? */
    int (*cpu_online)(uint16_t cpu);
    /* Highest CPU address that can be configured (MAX_CPU_ENGINES - 1). */
    uint16_t (*max_cpu)(void);
    /* Host CPU time consumed by CPU `cpu`'s thread, in nanoseconds (0 if offline). */
    uint64_t (*thread_cputime_ns)(uint16_t cpu);
    /* Hercules' instruction count of CPU `cpu` (0 if offline). */
    uint64_t (*instcount)(uint16_t cpu);
    /* Current TOD clock bits 0-63. */
    uint64_t (*tod)(void);
    /* Architecture mode of CPU `cpu`, 0-2, or 255 when offline; PSW bits in `state`:
     * bit 0 problem, 1 wait, 2 stopped. */
    uint8_t (*cpu_state)(uint16_t cpu, uint8_t *state);
    /* Read CPU `cpu`'s state for a sample taken from another thread: 1 with `out` filled
     * when the CPU is online, started, not waiting, not interpreting a SIE guest and not
     * executing the target of an EXECUTE, and its instruction address read consistently;
     * 0 otherwise (the caller then arms the CPU). `accounting`: `timer_due` is wanted
     * (an accounting point is due and the sampler is above Hercules' timer thread; it reads
     * Hercules' clock, under its TOD lock). */
    int (*peek)(uint16_t cpu, int accounting, hcpumf_peek *out);
    /* Read CPU `cpu` for a dedicated CPU's samples: 1 with `out` filled when the CPU is
     * online, started and not interpreting a SIE guest (`waiting` says whether it sits in
     * Hercules' wait, its PSW fields then read consistently); 0 otherwise. */
    int (*peek_wait)(uint16_t cpu, hcpumf_wait_peek *out);
    /* Hercules' TOD-clock update, as its timer thread makes it after each TIMERINT sleep
     * (update_tod_clock: the TOD clock, then every CPU's clock comparator, CPU timer and
     * interval timer, under the TOD and interrupt locks). The caller holds no CPU. */
    void (*tod_update)(void);
    /* Hercules' timer-thread interval (sysblk.timerint, microseconds); when `us` > 0 it is
     * set to `us`. Returns the value before. */
    int (*timerint)(int us);
} hcpumf_host;

/* The glue's HDL sections. The Rust cdylib exports hdl_depc, hdl_reso, hdl_init, hdl_dins
 * and hdl_fini (only Rust's exports are visible in the plugin) and forwards to these, which
 * the glue registers from a constructor when Hercules loads the module. */
typedef struct hcpumf_hdl {
    int (*depc)(void *vers);
    void (*reso)(void *fent);
    void (*init)(void *regi);
    void (*dins)(void *dins);
    int (*fini)(void);
} hcpumf_hdl;

#endif
