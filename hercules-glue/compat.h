/* hcpumf: the names that differ between Debian's Hercules 3.13 and SDL Hyperion 4.x, in one
 * place. build.rs compiles the glue with HCPUMF_HYPERION for a Hyperion tree (detected from
 * the tree or forced with HCPUMF_HERCULES=hyperion). The glue's code uses only the HCPUMF_
 * names below where the two differ; what differs in mechanism (Hyperion's one opcode table
 * per architecture, its facility list, its HDL sections) lives in arming_hyperion.c and
 * hyperion.c.
 *
 * Several of Hyperion's renames compile silently into a broken z/Architecture build when the
 * old name is used (FEATURE_ESAME, FEATURE_STORE_FACILITY_LIST_EXTENDED,
 * FEATURE_MESSAGE_SECURITY_ASSIST, _ARCHMODE2/3): each is checked with #error below instead.
 *
 * Like internal.h, the first part is read once, the second in every architecture pass. */

#ifndef HCPUMF_COMPAT_H
#define HCPUMF_COMPAT_H

#if defined(HCPUMF_HYPERION)

 /* The HERCULES dependency string HDL compares at ldmod is built from these (version.h);
  * Hyperion's Makefile passes them on the command line, and so does build.rs. Without
  * them the module compiles and is refused at ldmod (HHC01509I). */
 #if !defined(VERS_MAJ) || !defined(VERS_INT) || !defined(VERS_MIN) || !defined(DYNAMIC_VERSION)
  #error "hcpumf: compile with the -DVERS_MAJ/INT/MIN/BLD and DYNAMIC_VERSION of the Hyperion tree (build.rs reads them from its _dynamic_version)"
 #endif
 /* Architecture passes: 3.13's _ARCHMODE2/3 do not exist here; without both passes the
  * s390_ and z900_ functions are never generated. */
 #if !defined(_ARCH_NUM_1) || !defined(_ARCH_NUM_2) || defined(_ARCHMODE2) || defined(_ARCHMODE3)
  #error "hcpumf: expected Hyperion's _ARCH_NUM_1/_ARCH_NUM_2 (S/370, ESA/390 and z/Architecture all built)"
 #endif
 #define HCPUMF_ARCH_PASS2 _ARCH_NUM_1
 #define HCPUMF_ARCH_PASS3 _ARCH_NUM_2

 #define HCPUMF_ARCH_370 ARCH_370_IDX
 #define HCPUMF_ARCH_390 ARCH_390_IDX
 #define HCPUMF_ARCH_900 ARCH_900_IDX
 #define HCPUMF_MAX_ENGINES MAX_CPU_ENGS
 typedef INSTR_FUNC hcpumf_func;
 #define HCPUMF_DEF_INST HDL_DEF_INST
 /* TOD clock bits 0-55 in the low 56 bits (ETOD high; the epoch index is shifted out by
  * the caller's << 8), and the same taken without the TOD lock for a comparison with the
  * clock comparator, as Hyperion's own interruption check does. */
 #define HCPUMF_TOD(_regs) ((U64)get_tod_clock(_regs))
 #define HCPUMF_CLKC_PASSED(_regs) (TOD_CLOCK(_regs) > (_regs)->clkc)
 /* The PSW's instruction address from the instruction-fetch accelerator. */
 #define HCPUMF_SET_PSW_IA(_regs) MAYBE_SET_PSW_IA_FROM_IP(_regs)
 /* Nanoseconds of host_tod() units, which Hercules' wait times (regs->waittod, waittime)
  * are in: ETOD, 16 to the microsecond (bit 59). */
 #define HCPUMF_HOST_TOD_NS(_t) ((U64)(_t) * 125 / 2)
 /* An aie that marks the accelerator invalid: NULL after a PSW load, 1 ("pseudo invalid")
  * after a branch to another page, when ip no longer tells the instruction address. */
 #define HCPUMF_AIE_VALID(_aie) ((_aie) != INVALID_AIE && (_aie) != PSEUDO_INVALID_AIE)
 /* Reference and change bits of the frame at absolute address _abs, from the sampler
  * thread: with 2K key units (S/370 is built) a 4K frame has two keys, both set. */
 #if defined(_FEATURE_2K_STORAGE_KEYS)
  #define HCPUMF_MARK_FRAME(_abs, _bits)                                              \
      do {                                                                          \
          __atomic_fetch_or(&STOREKEY1((_abs), &sysblk), (_bits), __ATOMIC_RELAXED); \
          __atomic_fetch_or(&STOREKEY2((_abs), &sysblk), (_bits), __ATOMIC_RELAXED); \
      } while (0)
 #else
  #define HCPUMF_MARK_FRAME(_abs, _bits) \
      __atomic_fetch_or(&STOREKEY((_abs), &sysblk), (_bits), __ATOMIC_RELAXED)
 #endif

 /* The HDL sections are exported by the Rust side under Hyperion's names (src/plugin.rs);
  * the glue's own get these names (the section macros spell the entry names out). */
 #define hdl_check_depends_ep hcpumf_glue_depc
 #define hdl_resolve_symbols_ep hcpumf_glue_reso
 #define hdl_register_symbols_ep hcpumf_glue_init
 #define hdl_define_instructs_ep hcpumf_glue_dins
 #define hdl_on_module_unload_ep hcpumf_glue_fini

#else /* Hercules 3.13 */

 #if !defined(_ARCHMODE2) || !defined(_ARCHMODE3)
  #error "hcpumf: expected Hercules 3.13's _ARCHMODE2/_ARCHMODE3"
 #endif
 #define HCPUMF_ARCH_PASS2 _ARCHMODE2
 #define HCPUMF_ARCH_PASS3 _ARCHMODE3

 #define HCPUMF_ARCH_370 ARCH_370
 #define HCPUMF_ARCH_390 ARCH_390
 #define HCPUMF_ARCH_900 ARCH_900
 #define HCPUMF_MAX_ENGINES MAX_CPU_ENGINES
 typedef FUNC hcpumf_func;
 #define HCPUMF_DEF_INST HDL_DEFINST
 #define HCPUMF_TOD(_regs) ((U64)tod_clock(_regs))
 #define HCPUMF_CLKC_PASSED(_regs) (tod_clock(_regs) > (_regs)->clkc)
 #define HCPUMF_SET_PSW_IA(_regs) SET_PSW_IA(_regs)
 /* Nanoseconds of host_tod() units (microseconds), which Hercules' wait times
  * (regs->waittod, waittime) are in. */
 #define HCPUMF_HOST_TOD_NS(_t) ((U64)(_t) * 1000)
 #define HCPUMF_AIE_VALID(_aie) ((_aie) != NULL)
 #define HCPUMF_MARK_FRAME(_abs, _bits) \
     __atomic_fetch_or(&STORAGE_KEY((_abs), &sysblk), (_bits), __ATOMIC_RELAXED)

 #undef HDL_DEPC
 #undef HDL_RESO
 #undef HDL_INIT
 #undef HDL_FINI
 #undef HDL_DINS
 #define HDL_DEPC hcpumf_glue_depc
 #define HDL_RESO hcpumf_glue_reso
 #define HDL_INIT hcpumf_glue_init
 #define HDL_FINI hcpumf_glue_fini
 #define HDL_DINS hcpumf_glue_dins

#endif

#endif /* HCPUMF_COMPAT_H */

/* ---------------------------------------------------- per architecture pass ---------- */

#undef HCPUMF_SETTLE_INSTCOUNT
#undef HCPUMF_ZARCH
#undef HCPUMF_STFLE
#undef HCPUMF_MSA
#undef HCPUMF_MARK_PSA
#if defined(HCPUMF_HYPERION)
 #if defined(FEATURE_ESAME) || defined(FEATURE_STORE_FACILITY_LIST_EXTENDED) \
     || defined(FEATURE_MESSAGE_SECURITY_ASSIST)
  #error "hcpumf: Hercules 3.13 feature names in a Hyperion build"
 #endif
 #if __GEN_ARCH == 900 && (!defined(FEATURE_001_ZARCH_INSTALLED_FACILITY) \
     || !defined(FEATURE_007_STFL_EXTENDED_FACILITY) || !defined(FEATURE_017_MSA_FACILITY))
  #error "hcpumf: Hyperion's z/Architecture pass without FEATURE_001_ZARCH_INSTALLED_FACILITY, FEATURE_007_STFL_EXTENDED_FACILITY or FEATURE_017_MSA_FACILITY (renamed again?)"
 #endif
 #if __GEN_ARCH == 370 && !defined(FEATURE_S370_CHANNEL)
  #error "hcpumf: Hyperion's S/370 pass without FEATURE_S370_CHANNEL"
 #endif
 #if defined(FEATURE_001_ZARCH_INSTALLED_FACILITY)
  #define HCPUMF_ZARCH
 #endif
 #if defined(FEATURE_017_MSA_FACILITY)
  #define HCPUMF_MSA
 #endif
 #define HCPUMF_MARK_PSA(_regs) ARCH_DEP(or_storage_key)((_regs)->PX, STORKEY_REF | STORKEY_CHANGE)
 /* Hyperion adds a CPU's instructions to its count in batches of up to 256: an instruction
  * that reads the count first makes it current (instructions.c, hcpumf_settle) and returns
  * unexecuted when it had to. */
 #define HCPUMF_SETTLE_INSTCOUNT(_inst, _regs)          \
     do {                                               \
         if (ARCH_DEP(hcpumf_settle)((_inst), (_regs))) \
             return;                                    \
     } while (0)
#else
 /* Hercules 3.13 counts 12 instructions at a time, close enough. */
 #define HCPUMF_SETTLE_INSTCOUNT(_inst, _regs) do { } while (0)
 #if defined(FEATURE_ESAME)
  #define HCPUMF_ZARCH
 #endif
 #if defined(FEATURE_STORE_FACILITY_LIST_EXTENDED)
  #define HCPUMF_STFLE
 #endif
 #if defined(FEATURE_MESSAGE_SECURITY_ASSIST)
  #define HCPUMF_MSA
 #endif
 #define HCPUMF_MARK_PSA(_regs) (STORAGE_KEY((_regs)->PX, (_regs)) |= (STORKEY_REF | STORKEY_CHANGE))
#endif
