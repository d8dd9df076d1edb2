/**
 * Transparent huge pages for a Herald process's large arrays
 * (docs/operations.md, "Memory: huge pages").
 *
 * A broadcast's lists, sort rooms and delivery orders are typed arrays of
 * 4 bytes a recipient, most of them fresh: 40 MB at 10^7 recipients. The
 * kernel hands memory over a page at a time as it is first touched, and on
 * the virtual machines Herald was measured on each 4 KiB page's fault cost
 * about 13 us: 125 ms to touch a fresh 40 MB array, more than sorting it.
 * With huge pages a fault maps 2 MiB, and the same array took 8 ms.
 *
 * Node's ArrayBuffers come from glibc's malloc, which asks the kernel for huge
 * pages on the memory it maps (madvise MADV_HUGEPAGE) when the tunable
 * `glibc.malloc.hugetlb=1` is set; the kernel's `transparent_hugepage`
 * setting `madvise` (the common default) or `always` then grants them. A
 * tunable is read as the process starts, so it is set in the environment by
 * whoever starts the process: the systemd unit, the npm scripts, the test and
 * benchmark launchers. `HERALD_HUGE_PAGES=0` leaves it unset.
 */

/** The environment variable glibc reads its tunables from (colon-separated `name=value`). */
export const GLIBC_TUNABLES = 'GLIBC_TUNABLES';
/** The tunable that makes malloc ask for transparent huge pages. */
export const HUGE_PAGES_TUNABLE = 'glibc.malloc.hugetlb';
/** `HERALD_HUGE_PAGES=0` in the environment: start without huge pages. */
export const HUGE_PAGES_ENV = 'HERALD_HUGE_PAGES';

type Environment = Readonly<Record<string, string | undefined>>;

/** Whether the environment sets the hugetlb tunable (to any value: an operator's own choice is kept). */
export function setsHugePages(env: Environment): boolean {
  return (env[GLIBC_TUNABLES] ?? '').split(':').some((entry) => entry.startsWith(`${HUGE_PAGES_TUNABLE}=`));
}

/**
 * The environment for starting a Herald process: `env` with huge pages asked
 * for, after the tunables it already sets; `env` itself when it sets the
 * tunable already or says HERALD_HUGE_PAGES=0.
 */
export function withHugePages<E extends Environment>(env: E): E {
  if (env[HUGE_PAGES_ENV] === '0' || setsHugePages(env)) return env;
  const others = env[GLIBC_TUNABLES];
  const tunables = others === undefined || others === '' ? '' : `${others}:`;
  return { ...env, [GLIBC_TUNABLES]: `${tunables}${HUGE_PAGES_TUNABLE}=1` };
}

/**
 * Why this process runs without huge pages for its arrays, or undefined when
 * it asked for them (or the platform has no such tunable): the line a
 * starting process logs, so an operator who launched it by hand learns it.
 * `thpSetting` is the kernel's /sys/kernel/mm/transparent_hugepage/enabled.
 */
export function hugePagesMissing(
  env: Environment,
  platform: string,
  thpSetting: string | undefined,
): string | undefined {
  if (platform !== 'linux') return undefined;
  if (thpSetting !== undefined && /\[never\]/.test(thpSetting))
    return 'the kernel grants no transparent huge pages (transparent_hugepage is [never])';
  if (env[HUGE_PAGES_ENV] === '0') return `${HUGE_PAGES_ENV}=0`;
  if (!setsHugePages(env))
    return `started without ${GLIBC_TUNABLES}=${HUGE_PAGES_TUNABLE}=1 (the systemd unit and npm scripts set it)`;
  return undefined;
}
