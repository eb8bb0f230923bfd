// olm-resolver-peer runs OLM v0.24.0's own dependency resolver
// (pkg/controller/registry/resolver, Resolver.Resolve) over a file-based
// catalog, one subscription at a time, so `recon bench olm --peer` can race
// it against recon's resolver on the same catalog and the same
// subscriptions, in the same run.
//
// It is built inside OLM's source tree at tag v0.24.0 from OLM's vendored
// modules only (build.sh beside this file). What it runs of OLM is what the
// catalog operator runs: the registry source that turns a catalog's bundle
// stream into resolver cache entries (newOperatorFromBundle, StripPlural,
// EnsurePackageProperty), OLM's snapshot cache with its 5-minute TTL, and the
// SAT resolver. What it plays itself:
//
//   - the catalog pod: the FBC directory is read here and each channel entry
//     becomes the api.Bundle that `opm serve` (operator-registry v1.26.5)
//     sends over ListBundles for it (see bundlesOf), proto-encoded once and
//     decoded on every ListBundles as the gRPC stream would;
//   - the namespace's installed CSVs: none (a fresh namespace), as OLM's
//     csvSource gives for a namespace without CSVs.
//
// Unit of work, the same one recon times beside it: one Resolve call for a
// fresh namespace holding one Subscription (package, channel, startingCSV),
// against the whole catalog, sequentially.
//
// Input:  -catalog DIR (JSON documents; YAML is refused), -subscriptions FILE
// (JSON lines {"namespace","package","channel","startingCSV"}).
// Output: -results FILE, one JSON line per subscription in input order:
// {"status":"ok"|"unsat"|"error","operators":[csv names, sorted],"error":...};
// -summary FILE, one JSON object (rates, latencies, RSS; see main).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"
	"google.golang.org/protobuf/proto"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/controller/registry"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/controller/registry/resolver"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/controller/registry/resolver/cache"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/controller/registry/resolver/solver"
	"github.com/operator-framework/operator-registry/pkg/api"
	"github.com/operator-framework/operator-registry/pkg/client"
)

// ---- the catalog: FBC documents -----------------------------------------

type fbcProperty struct {
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
}

type fbcEntry struct {
	Name      string   `json:"name"`
	Replaces  string   `json:"replaces"`
	Skips     []string `json:"skips"`
	SkipRange string   `json:"skipRange"`
}

// fbcDoc is any of olm.package, olm.channel and olm.bundle; other schemas
// are skipped, as opm skips schemas it does not know.
type fbcDoc struct {
	Schema         string        `json:"schema"`
	Name           string        `json:"name"`
	Package        string        `json:"package"`
	DefaultChannel string        `json:"defaultChannel"`
	Image          string        `json:"image"`
	Entries        []fbcEntry    `json:"entries"`
	Properties     []fbcProperty `json:"properties"`
}

type catalog struct {
	defaultChannel map[string]string   // package -> default channel
	channels       map[string][]string // package -> channel names, sorted
	bundles        []*api.Bundle       // ListBundles order: package, channel, entry order
}

func readDocs(dir string) ([]fbcDoc, error) {
	var docs []fbcDoc
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch strings.ToLower(filepath.Ext(path)) {
		case ".json":
		case ".yaml", ".yml":
			return fmt.Errorf("%s: YAML catalogs are not read by this peer (convert with `recon catalog render -o json`)", path)
		default:
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		dec := json.NewDecoder(bufio.NewReaderSize(f, 1<<20))
		for n := 1; ; n++ {
			var doc fbcDoc
			if err := dec.Decode(&doc); err == io.EOF {
				return nil
			} else if err != nil {
				return fmt.Errorf("%s: document %d: %w", path, n, err)
			}
			docs = append(docs, doc)
		}
	})
	return docs, err
}

// bundlesOf makes the api.Bundle operator-registry v1.26.5's model_to_api
// makes of one channel entry: the bundle's name, package, channel and image;
// provided and required APIs from its olm.gvk and olm.gvk.required
// properties; its version from olm.package; replaces, skips and skipRange
// from the channel entry; olm.gvk.required and olm.package.required also as
// legacy dependencies (a package's range under "version"); every property
// but olm.bundle.object. The CSV JSON
// and objects are left out, as opm leaves them out for a bundle with an image.
func bundlesOf(docs []fbcDoc) (*catalog, error) {
	c := &catalog{defaultChannel: map[string]string{}, channels: map[string][]string{}}
	byName := map[string]map[string]*fbcDoc{} // package -> bundle name -> doc
	channels := map[string][]*fbcDoc{}
	var packages []string
	for i := range docs {
		d := &docs[i]
		switch d.Schema {
		case "olm.package":
			if _, dup := c.defaultChannel[d.Name]; dup {
				return nil, fmt.Errorf("package %q declared twice", d.Name)
			}
			c.defaultChannel[d.Name] = d.DefaultChannel
			packages = append(packages, d.Name)
		case "olm.channel":
			channels[d.Package] = append(channels[d.Package], d)
		case "olm.bundle":
			if byName[d.Package] == nil {
				byName[d.Package] = map[string]*fbcDoc{}
			}
			byName[d.Package][d.Name] = d
		}
	}
	sort.Strings(packages)
	for _, p := range packages {
		chs := channels[p]
		sort.Slice(chs, func(i, j int) bool { return chs[i].Name < chs[j].Name })
		for _, ch := range chs {
			c.channels[p] = append(c.channels[p], ch.Name)
			for _, e := range ch.Entries {
				b := byName[p][e.Name]
				if b == nil {
					return nil, fmt.Errorf("package %q channel %q: entry %q has no olm.bundle", p, ch.Name, e.Name)
				}
				ab, err := apiBundle(b, ch.Name, e)
				if err != nil {
					return nil, fmt.Errorf("bundle %q: %w", e.Name, err)
				}
				c.bundles = append(c.bundles, ab)
			}
		}
	}
	return c, nil
}

func apiBundle(b *fbcDoc, channel string, e fbcEntry) (*api.Bundle, error) {
	out := &api.Bundle{CsvName: b.Name, PackageName: b.Package, ChannelName: channel, BundlePath: b.Image,
		SkipRange: e.SkipRange, Replaces: e.Replaces, Skips: e.Skips}
	type gvk struct{ Group, Version, Kind string }
	packages := 0
	for _, p := range b.Properties {
		switch p.Type {
		case "olm.package":
			var v struct{ Version string }
			if err := json.Unmarshal(p.Value, &v); err != nil {
				return nil, fmt.Errorf("olm.package: %w", err)
			}
			out.Version = v.Version
			packages++
		case "olm.gvk", "olm.gvk.required":
			var v gvk
			if err := json.Unmarshal(p.Value, &v); err != nil {
				return nil, fmt.Errorf("%s: %w", p.Type, err)
			}
			g := &api.GroupVersionKind{Group: v.Group, Version: v.Version, Kind: v.Kind}
			if p.Type == "olm.gvk" {
				out.ProvidedApis = append(out.ProvidedApis, g)
			} else {
				out.RequiredApis = append(out.RequiredApis, g)
				out.Dependencies = append(out.Dependencies, &api.Dependency{Type: "olm.gvk", Value: string(p.Value)})
			}
		case "olm.package.required":
			// As a legacy dependency its range is called "version" (opm
			// re-encodes it as an olm.package value).
			var v struct {
				PackageName  string `json:"packageName"`
				VersionRange string `json:"versionRange"`
			}
			if err := json.Unmarshal(p.Value, &v); err != nil {
				return nil, fmt.Errorf("olm.package.required: %w", err)
			}
			legacy, _ := json.Marshal(struct {
				PackageName string `json:"packageName"`
				Version     string `json:"version"`
			}{v.PackageName, v.VersionRange})
			out.Dependencies = append(out.Dependencies, &api.Dependency{Type: "olm.package", Value: string(legacy)})
		}
		if p.Type != "olm.bundle.object" {
			out.Properties = append(out.Properties, &api.Property{Type: p.Type, Value: string(p.Value)})
		}
	}
	if packages != 1 {
		return nil, fmt.Errorf("expected exactly 1 olm.package property, found %d", packages)
	}
	return out, nil
}

// ---- the catalog pod, in process ----------------------------------------

type registryPod struct {
	cat       *catalog
	encoded   [][]byte
	snapshots int64 // ListBundles calls: OLM's resolver cache re-snapshots the catalog
}

type bundleStream struct {
	pod *registryPod
	at  int
}

func (s *bundleStream) Recv() (*api.Bundle, error) {
	if s.at == len(s.pod.encoded) {
		return nil, io.EOF
	}
	b := &api.Bundle{}
	err := proto.Unmarshal(s.pod.encoded[s.at], b)
	s.at++
	return b, err
}

var errNotServed = errors.New("olm-resolver-peer: the resolver does not call this")

func (p *registryPod) GetBundle(context.Context, string, string, string) (*api.Bundle, error) {
	return nil, errNotServed
}
func (p *registryPod) GetBundleInPackageChannel(context.Context, string, string) (*api.Bundle, error) {
	return nil, errNotServed
}
func (p *registryPod) GetReplacementBundleInPackageChannel(context.Context, string, string, string) (*api.Bundle, error) {
	return nil, errNotServed
}
func (p *registryPod) GetBundleThatProvides(context.Context, string, string, string) (*api.Bundle, error) {
	return nil, errNotServed
}
func (p *registryPod) ListBundles(context.Context) (*client.BundleIterator, error) {
	atomic.AddInt64(&p.snapshots, 1)
	return client.NewBundleIterator(&bundleStream{pod: p}), nil
}
func (p *registryPod) GetPackage(_ context.Context, name string) (*api.Package, error) {
	dc, ok := p.cat.defaultChannel[name]
	if !ok {
		return nil, fmt.Errorf("package %q not in the catalog", name)
	}
	out := &api.Package{Name: name, DefaultChannelName: dc}
	for _, ch := range p.cat.channels[name] {
		out.Channels = append(out.Channels, &api.Channel{Name: ch})
	}
	return out, nil
}
func (p *registryPod) HealthCheck(context.Context, time.Duration) (bool, error) { return true, nil }
func (p *registryPod) Close() error                                             { return nil }

// oneCatalog is the catalog operator's source store with one connected CatalogSource.
type oneCatalog struct {
	key registry.CatalogKey
	pod client.Interface
}

func (o oneCatalog) ClientsForNamespaces(namespaces ...string) map[registry.CatalogKey]client.Interface {
	for _, ns := range namespaces {
		if ns == o.key.Namespace {
			return map[registry.CatalogKey]client.Interface{o.key: o.pod}
		}
	}
	return map[registry.CatalogKey]client.Interface{}
}

// noCsvs plays OLM's csvSourceProvider for namespaces without CSVs: the
// first (resolving) namespace's installed-operator source, empty, and valid
// for one resolution only, as csvSource's snapshots are.
type noCsvs struct{}

type emptySource struct{}

func (emptySource) Snapshot(context.Context) (*cache.Snapshot, error) {
	return &cache.Snapshot{Valid: cache.ValidOnce()}, nil
}

func (noCsvs) Sources(namespaces ...string) map[cache.SourceKey]cache.Source {
	out := map[cache.SourceKey]cache.Source{}
	if len(namespaces) > 0 {
		out[cache.NewVirtualSourceKey(namespaces[0])] = emptySource{}
	}
	return out
}

// both is the step resolver's merged source provider: catalogs, then installed CSVs.
type both struct{ catalogs, installed cache.SourceProvider }

func (b both) Sources(namespaces ...string) map[cache.SourceKey]cache.Source {
	out := b.catalogs.Sources(namespaces...)
	for k, s := range b.installed.Sources(namespaces...) {
		out[k] = s
	}
	return out
}

type samePriority struct{}

func (samePriority) Priority(cache.SourceKey) int { return 0 }

// ---- the race -------------------------------------------------------------

type subscription struct {
	Namespace   string `json:"namespace"`
	Package     string `json:"package"`
	Channel     string `json:"channel"`
	StartingCSV string `json:"startingCSV"`
}

type result struct {
	Status    string   `json:"status"`
	Operators []string `json:"operators"`
	Error     string   `json:"error,omitempty"`
}

func readSubscriptions(path string) ([]subscription, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []subscription
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var s subscription
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if s.Namespace == "" || s.Package == "" {
			return nil, fmt.Errorf("%s:%d: namespace and package are required", path, line)
		}
		out = append(out, s)
	}
	return out, sc.Err()
}

func peakRSSMB() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Maxrss) / 1024 // KiB on Linux
}

func quantileMs(sorted []time.Duration, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted)-1) + 0.5)
	return float64(sorted[i]) / float64(time.Millisecond)
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "olm-resolver-peer: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	dir := flag.String("catalog", "", "FBC catalog directory (JSON)")
	subsPath := flag.String("subscriptions", "", "JSON lines {namespace, package, channel, startingCSV}")
	name := flag.String("catalog-name", "community", "the CatalogSource's name")
	namespace := flag.String("catalog-namespace", "openshift-marketplace", "the CatalogSource's namespace (OLM's global catalog namespace)")
	resultsPath := flag.String("results", "", "where to write one JSON line per subscription")
	summaryPath := flag.String("summary", "", "where to write the summary JSON")
	flag.Parse()
	if *dir == "" || *subsPath == "" || *resultsPath == "" || *summaryPath == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: olm-resolver-peer -catalog DIR -subscriptions FILE -results FILE -summary FILE [-catalog-name N] [-catalog-namespace NS]")
		os.Exit(2)
	}
	t0 := time.Now()
	docs, err := readDocs(*dir)
	if err != nil {
		fail("%v", err)
	}
	cat, err := bundlesOf(docs)
	if err != nil {
		fail("%s: %v", *dir, err)
	}
	docs = nil
	pod := &registryPod{cat: cat}
	for _, b := range cat.bundles {
		enc, err := proto.Marshal(b)
		if err != nil {
			fail("encode %s: %v", b.CsvName, err)
		}
		pod.encoded = append(pod.encoded, enc)
	}
	subs, err := readSubscriptions(*subsPath)
	if err != nil {
		fail("%v", err)
	}
	loadS := time.Since(t0).Seconds()

	logger := logrus.New()
	logger.SetOutput(io.Discard) // the catalog operator logs at info; the solver's traces are debug
	key := registry.CatalogKey{Name: *name, Namespace: *namespace}
	catalogs := resolver.SourceProviderFromRegistryClientProvider(oneCatalog{key: key, pod: pod}, logger)
	res := resolver.NewDefaultResolver(both{catalogs: catalogs, installed: noCsvs{}}, samePriority{}, logger)
	subscribe := func(s subscription) []*v1alpha1.Subscription {
		return []*v1alpha1.Subscription{{
			TypeMeta:   metav1.TypeMeta{Kind: v1alpha1.SubscriptionKind, APIVersion: v1alpha1.SubscriptionCRDAPIVersion},
			ObjectMeta: metav1.ObjectMeta{Name: s.Package, Namespace: s.Namespace},
			Spec: &v1alpha1.SubscriptionSpec{CatalogSource: *name, CatalogSourceNamespace: *namespace,
				Package: s.Package, Channel: s.Channel, StartingCSV: s.StartingCSV,
				InstallPlanApproval: v1alpha1.ApprovalAutomatic},
		}}
	}

	// The first resolution takes the catalog's snapshot (kept by OLM's cache
	// for 5 minutes): timed apart, as recon's catalog load is.
	warmS := 0.0
	if len(subs) > 0 {
		tw := time.Now()
		w := subs[0]
		w.Namespace = "olm-resolver-peer-warm-up"
		_, _ = res.Resolve([]string{w.Namespace, *namespace}, subscribe(w))
		warmS = time.Since(tw).Seconds()
	}
	snapshotsBefore := atomic.LoadInt64(&pod.snapshots)
	results := make([]result, len(subs))
	latency := make([]time.Duration, len(subs))
	counts := map[string]int{"ok": 0, "unsat": 0, "error": 0}
	runtime.GC()
	start := time.Now()
	for i, s := range subs {
		ts := time.Now()
		entries, err := res.Resolve([]string{s.Namespace, *namespace}, subscribe(s))
		latency[i] = time.Since(ts)
		var unsat solver.NotSatisfiable
		switch {
		case err == nil:
			results[i].Status = "ok"
			for _, e := range entries {
				results[i].Operators = append(results[i].Operators, e.Name)
			}
			sort.Strings(results[i].Operators)
		case errors.As(err, &unsat):
			results[i].Status, results[i].Error = "unsat", err.Error()
		default:
			results[i].Status, results[i].Error = "error", err.Error()
		}
		counts[results[i].Status]++
	}
	totalS := time.Since(start).Seconds()

	out, err := os.Create(*resultsPath)
	if err != nil {
		fail("%v", err)
	}
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	for _, r := range results {
		if r.Operators == nil {
			r.Operators = []string{}
		}
		if err := enc.Encode(r); err != nil {
			fail("%s: %v", *resultsPath, err)
		}
	}
	if err := w.Flush(); err != nil {
		fail("%s: %v", *resultsPath, err)
	}
	if err := out.Close(); err != nil {
		fail("%s: %v", *resultsPath, err)
	}

	sorted := append([]time.Duration(nil), latency...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	perS := 0.0
	if totalS > 0 {
		perS = float64(len(subs)) / totalS
	}
	summary := map[string]interface{}{
		"peer":              "OLM v0.24.0 Resolver.Resolve",
		"go":                runtime.Version(),
		"gomaxprocs":        runtime.GOMAXPROCS(0),
		"bundles":           len(cat.bundles),
		"subscriptions":     len(subs),
		"ok":                counts["ok"],
		"unsat":             counts["unsat"],
		"error":             counts["error"],
		"load_s":            loadS,
		"warm_up_s":         warmS,
		"total_s":           totalS,
		"resolutions_per_s": perS,
		"p50_ms":            quantileMs(sorted, 0.50),
		"p99_ms":            quantileMs(sorted, 0.99),
		"max_ms":            quantileMs(sorted, 1),
		"resnapshots":       atomic.LoadInt64(&pod.snapshots) - snapshotsBefore,
		"peak_rss_mb":       peakRSSMB(),
	}
	b, _ := json.Marshal(summary)
	if err := os.WriteFile(*summaryPath, append(b, '\n'), 0o644); err != nil {
		fail("%s: %v", *summaryPath, err)
	}
	fmt.Printf("%s\n", b)
}
