import { hugePagesMissing, setsHugePages, withHugePages } from './huge-pages';

describe('huge pages for a Herald process', () => {
  it('asks for them after the tunables the environment already sets, keeping everything else', () => {
    expect(withHugePages({ PATH: '/bin' })).toEqual({ PATH: '/bin', GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1' });
    expect(withHugePages({ GLIBC_TUNABLES: '' }).GLIBC_TUNABLES).toBe('glibc.malloc.hugetlb=1');
    expect(withHugePages({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' }).GLIBC_TUNABLES).toBe(
      'glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1',
    );
  });

  it("keeps an operator's own hugetlb value, and HERALD_HUGE_PAGES=0 leaves the environment as it is", () => {
    const own = { GLIBC_TUNABLES: 'glibc.malloc.arena_max=2:glibc.malloc.hugetlb=0' };
    expect(withHugePages(own)).toBe(own);
    const off = { HERALD_HUGE_PAGES: '0' };
    expect(withHugePages(off)).toBe(off);
    // A tunable whose name only ends like it is another one.
    expect(setsHugePages({ GLIBC_TUNABLES: 'x.glibc.malloc.hugetlb=1' })).toBe(false);
  });

  it('says why a Linux process runs without them, and nothing elsewhere', () => {
    const madvise = 'always [madvise] never\n';
    expect(hugePagesMissing({}, 'linux', madvise)).toMatch(/started without GLIBC_TUNABLES=glibc\.malloc\.hugetlb=1/);
    expect(hugePagesMissing(withHugePages({}), 'linux', madvise)).toBeUndefined();
    expect(hugePagesMissing(withHugePages({}), 'linux', 'always madvise [never]\n')).toMatch(/\[never\]/);
    expect(hugePagesMissing({ HERALD_HUGE_PAGES: '0' }, 'linux', madvise)).toBe('HERALD_HUGE_PAGES=0');
    expect(hugePagesMissing({}, 'darwin', undefined)).toBeUndefined();
  });
});
