package system

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// procReader reads Linux's /proc and cgroup files under root ("/" outside
// tests, a fixture directory in tests).
//
// CPU usage is the process's share of its cgroup's CPU limit when the
// cgroup (or one of its ancestors) has one: cgroup v2 cpu.max with
// cpu.stat usage_usec, or v1 cpu.cfs_quota_us / cpu.cfs_period_us with
// cpuacct.usage; the process's own utime+stime from /proc/self/stat when
// the cgroup's usage cannot be read. Without a limit it is the whole
// machine's usage from /proc/stat. Either is a difference between two
// readings, so the first reading is unknown (-1). cpuset limits are not
// considered.
type procReader struct {
	root string
	now  func() time.Time

	// Previous readings for the differences.
	prevTotal, prevIdle uint64
	haveStat            bool
	prevUsage           time.Duration // cgroup or process CPU time
	prevWall            time.Time
	prevSource          string // the file prevUsage came from
}

func newProcReader(root string) *procReader { return &procReader{root: root, now: time.Now} }

func (p *procReader) file(name string) string { return filepath.Join(p.root, filepath.FromSlash(name)) }

func (p *procReader) read(name string) (string, error) {
	b, err := os.ReadFile(p.file(name))
	return string(b), err
}

// SystemLoad reads the one-minute load average from /proc/loadavg.
func (p *procReader) SystemLoad() (float64, error) {
	s, err := p.read("/proc/loadavg")
	if err != nil {
		return -1, err
	}
	return parseLoadavg(s)
}

func parseLoadavg(s string) (float64, error) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return -1, errors.New("system: /proc/loadavg is empty")
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil || v < 0 {
		return -1, fmt.Errorf("system: bad load average %q in /proc/loadavg", f[0])
	}
	return v, nil
}

// CPUUsage is the recent CPU usage, in 0..1 (see procReader).
func (p *procReader) CPUUsage() (float64, error) {
	if lim, ok := p.cgroupLimit(); ok {
		return p.limitedUsage(lim)
	}
	p.prevSource = ""
	s, err := p.read("/proc/stat")
	if err != nil {
		return -1, err
	}
	total, idle, err := parseProcStat(s)
	if err != nil {
		return -1, err
	}
	prevTotal, prevIdle, had := p.prevTotal, p.prevIdle, p.haveStat
	p.prevTotal, p.prevIdle, p.haveStat = total, idle, true
	if !had || total <= prevTotal {
		return -1, nil
	}
	dt, di := total-prevTotal, idle-min(idle, prevIdle)
	return clamp01(float64(dt-min(di, dt)) / float64(dt)), nil
}

// parseProcStat returns the total and idle (idle+iowait) jiffies of the
// "cpu" line of /proc/stat. guest and guest_nice are already counted in
// user and nice.
func parseProcStat(s string) (total, idle uint64, err error) {
	line, _, _ := strings.Cut(s, "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return 0, 0, fmt.Errorf("system: unexpected first line of /proc/stat: %q", line)
	}
	for i, s := range f[1:min(len(f), 9)] { // user nice system idle iowait irq softirq steal
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("system: bad number %q in /proc/stat", s)
		}
		total += v
		if i == 3 || i == 4 {
			idle += v
		}
	}
	return total, idle, nil
}

// cpuLimit is a cgroup CPU limit: how many CPUs' worth of time the cgroup
// may use, and where its usage is counted.
type cpuLimit struct {
	cpus      float64
	usageFile string // cpu.stat (v2, usage_usec) or cpuacct.usage (v1, ns)
	usageIsV2 bool
}

func (p *procReader) limitedUsage(lim cpuLimit) (float64, error) {
	used, source, err := p.cgroupUsage(lim)
	if err != nil {
		used, source, err = p.processUsage()
		if err != nil {
			return -1, err
		}
	}
	now := p.now()
	prevUsed, prevWall, prevSource := p.prevUsage, p.prevWall, p.prevSource
	p.prevUsage, p.prevWall, p.prevSource = used, now, source
	wall := now.Sub(prevWall)
	if prevSource != source || wall <= 0 || used < prevUsed {
		return -1, nil
	}
	return clamp01(float64(used-prevUsed) / (float64(wall) * lim.cpus)), nil
}

func (p *procReader) cgroupUsage(lim cpuLimit) (time.Duration, string, error) {
	if lim.usageFile == "" {
		return 0, "", errors.New("system: no cgroup CPU accounting")
	}
	s, err := p.read(lim.usageFile)
	if err != nil {
		return 0, "", err
	}
	if !lim.usageIsV2 {
		ns, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return 0, "", fmt.Errorf("system: bad cpuacct.usage %q", strings.TrimSpace(s))
		}
		return time.Duration(ns), lim.usageFile, nil
	}
	for line := range strings.Lines(s) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "usage_usec "); ok {
			us, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return 0, "", fmt.Errorf("system: bad usage_usec %q in cpu.stat", v)
			}
			return time.Duration(us) * time.Microsecond, lim.usageFile, nil
		}
	}
	return 0, "", errors.New("system: no usage_usec in cpu.stat")
}

// userHZ is the unit of /proc/self/stat's times: 100 on every mainstream
// Linux build.
const userHZ = 100

// processUsage is this process's CPU time (utime+stime of /proc/self/stat).
func (p *procReader) processUsage() (time.Duration, string, error) {
	s, err := p.read("/proc/self/stat")
	if err != nil {
		return 0, "", err
	}
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, "", errors.New("system: unexpected /proc/self/stat")
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3 (state)
	if len(f) < 13 {
		return 0, "", errors.New("system: short /proc/self/stat")
	}
	ut, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, "", errors.New("system: bad utime or stime in /proc/self/stat")
	}
	return time.Duration(ut+st) * time.Second / userHZ, "/proc/self/stat", nil
}

func clamp01(f float64) float64 { return max(0, min(1, f)) }

// mount is one cgroup line of /proc/self/mountinfo.
type mount struct {
	root, point, fstype string
	opts                []string // super options: the v1 controllers
}

func parseMountinfo(s string) []mount {
	var out []mount
	for line := range strings.Lines(s) {
		pre, post, ok := strings.Cut(strings.TrimSpace(line), " - ")
		if !ok {
			continue
		}
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) < 5 || len(g) < 3 || (g[0] != "cgroup" && g[0] != "cgroup2") {
			continue
		}
		out = append(out, mount{root: f[3], point: f[4], fstype: g[0], opts: strings.Split(g[2], ",")})
	}
	return out
}

// parseSelfCgroup returns the v1 controllers' paths and the v2 path of
// /proc/self/cgroup.
func parseSelfCgroup(s string) (v1 map[string]string, v2 string, hasV2 bool) {
	v1 = map[string]string{}
	for line := range strings.Lines(s) {
		parts := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			v2, hasV2 = parts[2], true
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			v1[c] = parts[2]
		}
	}
	return v1, v2, hasV2
}

// cgroupDir maps a cgroup path to its directory under mount m.
func cgroupDir(m mount, cgPath string) string {
	rel := cgPath
	if m.root != "/" {
		if r, ok := strings.CutPrefix(cgPath, m.root); ok {
			rel = r
		} else {
			rel = "/" // another namespace's view: the mount is our cgroup
		}
	}
	return path.Join(m.point, rel)
}

// cgroupLimit finds the tightest CPU limit on the process's cgroup and its
// ancestors, v1's cpu controller first (on hybrid systems it holds the
// limits), then v2's.
func (p *procReader) cgroupLimit() (cpuLimit, bool) {
	cg, err := p.read("/proc/self/cgroup")
	if err != nil {
		return cpuLimit{}, false
	}
	mi, err := p.read("/proc/self/mountinfo")
	if err != nil {
		return cpuLimit{}, false
	}
	v1, v2, hasV2 := parseSelfCgroup(cg)
	mounts := parseMountinfo(mi)
	if cpuPath, ok := v1["cpu"]; ok {
		if m, ok := findMount(mounts, "cgroup", "cpu"); ok {
			dir := cgroupDir(m, cpuPath)
			if cpus, ok := p.walkLimit(m.point, dir, p.v1Limit); ok {
				lim := cpuLimit{cpus: cpus}
				if acctPath, ok := v1["cpuacct"]; ok {
					if am, ok := findMount(mounts, "cgroup", "cpuacct"); ok {
						lim.usageFile = path.Join(cgroupDir(am, acctPath), "cpuacct.usage")
					}
				}
				return lim, true
			}
		}
	}
	if hasV2 {
		if m, ok := findMount(mounts, "cgroup2", ""); ok {
			dir := cgroupDir(m, v2)
			if cpus, ok := p.walkLimit(m.point, dir, p.v2Limit); ok {
				return cpuLimit{cpus: cpus, usageFile: path.Join(dir, "cpu.stat"), usageIsV2: true}, true
			}
		}
	}
	return cpuLimit{}, false
}

func findMount(ms []mount, fstype, controller string) (mount, bool) {
	for _, m := range ms {
		if m.fstype != fstype {
			continue
		}
		if controller == "" {
			return m, true
		}
		for _, o := range m.opts {
			if o == controller {
				return m, true
			}
		}
	}
	return mount{}, false
}

// walkLimit reads the limit of dir and of each ancestor up to the mount
// point, and returns the smallest.
func (p *procReader) walkLimit(top, dir string, limit func(dir string) (float64, bool)) (float64, bool) {
	best, found := 0.0, false
	for d := dir; ; d = path.Dir(d) {
		if cpus, ok := limit(d); ok && (!found || cpus < best) {
			best, found = cpus, true
		}
		if d == top || d == "/" || d == "." || !strings.HasPrefix(d, top) {
			break
		}
	}
	return best, found
}

// v1Limit reads cpu.cfs_quota_us / cpu.cfs_period_us; a quota of -1 is no
// limit.
func (p *procReader) v1Limit(dir string) (float64, bool) {
	q, err1 := p.read(path.Join(dir, "cpu.cfs_quota_us"))
	per, err2 := p.read(path.Join(dir, "cpu.cfs_period_us"))
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return quotaCPUs(strings.TrimSpace(q), strings.TrimSpace(per))
}

// v2Limit reads cpu.max, "max 100000" or "50000 100000".
func (p *procReader) v2Limit(dir string) (float64, bool) {
	s, err := p.read(path.Join(dir, "cpu.max"))
	if err != nil {
		return 0, false
	}
	f := strings.Fields(s)
	if len(f) != 2 {
		return 0, false
	}
	return quotaCPUs(f[0], f[1])
}

func quotaCPUs(quota, period string) (float64, bool) {
	q, err1 := strconv.ParseInt(quota, 10, 64)
	per, err2 := strconv.ParseInt(period, 10, 64)
	if err1 != nil || err2 != nil || q <= 0 || per <= 0 {
		return 0, false // "max", -1 or garbage: no limit
	}
	return float64(q) / float64(per), true
}
