// Package deploy_test renders the kustomize trees under deploy/ in-process
// (krusty), decodes every document strictly with client-go's scheme (unknown
// fields and wrong types fail), then checks the rules the decoder cannot:
// security context, resources, probes, migrations, cross references between
// objects, the runtime contract of each binary, and the network policies
// against the call graph (networkpolicy_test.go).
package deploy_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// service is one line of the runtime contract (deploy/README.md).
type service struct {
	name    string
	port    int32  // container port of the server
	addrEnv string // env var holding ":<port>"
	db      bool   // owns a schema: DATABASE_URL + migrate init step
}

var services = []service{
	{"gateway", 8080, "HTTP_ADDR", false},
	{"auth", 9001, "AUTH_ADDR", true},
	{"projects", 9002, "PROJECTS_ADDR", true},
	{"interests", 9003, "INTERESTS_ADDR", true},
	{"subscription", 9004, "SUBSCRIPTION_ADDR", true},
	{"notification", 9005, "NOTIFICATION_ADDR", true},
	{"teams", 9007, "TEAMS_ADDR", true},
	{"realtime", 9006, "REALTIME_ADDR", false},
}

const (
	labelName   = "app.kubernetes.io/name"
	labelPartOf = "app.kubernetes.io/part-of"
	partOf      = "bidradar"
	uid         = 65532 // distroless "nonroot"; the Dockerfile's USER
	grace       = 30    // terminationGracePeriodSeconds
	drainBudget = 15    // the binaries stop within 15 s of SIGTERM
)

// target describes what a rendered tree must look like.
type target struct {
	dir       string
	namespace string // "" = not set (base)
	prod      bool   // pinned tags, >= 2 replicas, PDBs, HPAs, TLS ingress
	dev       bool   // 1 replica, debug logs
	logLevel  string
	// partial: a fixture that is not a whole application (negative tests);
	// the completeness checks (all 7 services present) are skipped.
	partial bool
}

var targets = []target{
	{dir: "base", logLevel: "info"},
	{dir: "overlays/dev", namespace: "bidradar-dev", dev: true, logLevel: "debug"},
	{dir: "overlays/prod", namespace: "bidradar", prod: true, logLevel: "info"},
}

// templateName is the placeholder name of the objects in components/go-service.
const templateName = "go-service"

var strict = json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme.Scheme, scheme.Scheme,
	json.SerializerOptions{Yaml: true, Strict: true})

// render builds a kustomization directory and strictly decodes each document.
func render(dir string) ([]runtime.Object, error) {
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	rm, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	out, err := rm.AsYaml()
	if err != nil {
		return nil, fmt.Errorf("kustomize yaml %s: %w", dir, err)
	}
	// components/go-service names its templates "go-service"; a replacement
	// that missed a field would leave that name in the output.
	if bytes.Contains(out, []byte(templateName)) {
		return nil, fmt.Errorf("kustomize build %s: the template name %q is left in the output", dir, templateName)
	}
	return decodeAll(out)
}

func decodeAll(out []byte) ([]runtime.Object, error) {
	var objs []runtime.Object
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(out)))
	for i := 0; ; i++ {
		doc, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		obj, gvk, err := strict.Decode(doc, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("document %d (%s): %w", i, firstLines(doc), err)
		}
		if gvk.Kind == "" {
			return nil, fmt.Errorf("document %d: no kind", i)
		}
		objs = append(objs, obj)
	}
	if len(objs) == 0 {
		return nil, errors.New("no documents rendered")
	}
	return objs, nil
}

func firstLines(doc []byte) string {
	var parts []string
	for _, l := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(l, "kind:") || strings.HasPrefix(l, "  name:") {
			parts = append(parts, strings.TrimSpace(l))
		}
	}
	return strings.Join(parts, " ")
}

// index groups the rendered objects by kind and name.
type index struct {
	deployments map[string]*appsv1.Deployment
	services    map[string]*corev1.Service
	accounts    map[string]*corev1.ServiceAccount
	configMaps  map[string]*corev1.ConfigMap
	pdbs        map[string]*policyv1.PodDisruptionBudget
	hpas        map[string]*autoscalingv2.HorizontalPodAutoscaler
	ingresses   map[string]*networkingv1.Ingress
	netpols     map[string]*networkingv1.NetworkPolicy
	namespaces  map[string]*corev1.Namespace
	all         []runtime.Object
}

func newIndex(objs []runtime.Object) (*index, []error) {
	ix := &index{
		deployments: map[string]*appsv1.Deployment{},
		services:    map[string]*corev1.Service{},
		accounts:    map[string]*corev1.ServiceAccount{},
		configMaps:  map[string]*corev1.ConfigMap{},
		pdbs:        map[string]*policyv1.PodDisruptionBudget{},
		hpas:        map[string]*autoscalingv2.HorizontalPodAutoscaler{},
		ingresses:   map[string]*networkingv1.Ingress{},
		netpols:     map[string]*networkingv1.NetworkPolicy{},
		namespaces:  map[string]*corev1.Namespace{},
		all:         objs,
	}
	var errs []error
	for _, o := range objs {
		switch v := o.(type) {
		case *appsv1.Deployment:
			ix.deployments[v.Name] = v
		case *corev1.Service:
			ix.services[v.Name] = v
		case *corev1.ServiceAccount:
			ix.accounts[v.Name] = v
		case *corev1.ConfigMap:
			ix.configMaps[v.Name] = v
		case *policyv1.PodDisruptionBudget:
			ix.pdbs[v.Name] = v
		case *autoscalingv2.HorizontalPodAutoscaler:
			ix.hpas[v.Name] = v
		case *networkingv1.Ingress:
			ix.ingresses[v.Name] = v
		case *networkingv1.NetworkPolicy:
			ix.netpols[v.Name] = v
		case *corev1.Namespace:
			ix.namespaces[v.Name] = v
		case *corev1.Secret:
			errs = append(errs, fmt.Errorf("Secret %q is rendered: secrets must not live in the repository", v.Name))
		default:
			errs = append(errs, fmt.Errorf("unexpected kind %T", o))
		}
	}
	return ix, errs
}

// validate runs every custom check; it returns all problems found.
func validate(objs []runtime.Object, tg target) []error {
	ix, errs := newIndex(objs)
	add := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }

	// Metadata: labels and namespace on every object.
	for _, o := range objs {
		m, err := metaOf(o)
		if err != nil {
			add("%v", err)
			continue
		}
		kind := fmt.Sprintf("%T", o)
		if m.GetLabels()[labelPartOf] != partOf {
			add("%s %q: missing label %s=%s", kind, m.GetName(), labelPartOf, partOf)
		}
		if _, isNS := o.(*corev1.Namespace); isNS {
			continue
		}
		if m.GetLabels()[labelName] == "" {
			add("%s %q: missing label %s", kind, m.GetName(), labelName)
		}
		if m.GetNamespace() != tg.namespace {
			add("%s %q: namespace %q, want %q", kind, m.GetName(), m.GetNamespace(), tg.namespace)
		}
	}
	if tg.namespace != "" {
		ns, ok := ix.namespaces[tg.namespace]
		if !ok {
			add("Namespace %q is not rendered", tg.namespace)
		} else if ns.Labels["pod-security.kubernetes.io/enforce"] != "restricted" {
			add("Namespace %q: does not enforce the restricted Pod Security Standard", tg.namespace)
		}
	}

	// The contract: every service is there, wired as documented.
	if !tg.partial {
		for _, s := range services {
			if _, ok := ix.deployments[s.name]; !ok {
				add("Deployment %q missing", s.name)
			}
			if _, ok := ix.services[s.name]; !ok {
				add("Service %q missing", s.name)
			}
		}
		if cm, ok := ix.configMap("bidradar-config"); !ok {
			add("ConfigMap bidradar-config missing")
		} else {
			for _, k := range []string{"NATS_URL", "LOG_LEVEL", "SMTP_PORT", "SMTP_TLS", "MAIL_FROM", "ALLOWED_ORIGINS"} {
				if cm.Data[k] == "" {
					add("ConfigMap bidradar-config: %s empty", k)
				}
			}
			if got := cm.Data["LOG_LEVEL"]; tg.logLevel != "" && got != tg.logLevel {
				add("ConfigMap bidradar-config: LOG_LEVEL %q, want %q", got, tg.logLevel)
			}
			if tg.prod && !strings.HasPrefix(cm.Data["ALLOWED_ORIGINS"], "https://") {
				add("ConfigMap bidradar-config: prod ALLOWED_ORIGINS must be https, got %q", cm.Data["ALLOWED_ORIGINS"])
			}
		}
	}

	for _, name := range sortedKeys(ix.deployments) {
		errs = append(errs, checkDeployment(ix, ix.deployments[name], tg)...)
	}
	for _, name := range sortedKeys(ix.services) {
		errs = append(errs, checkService(ix, ix.services[name])...)
	}
	for _, name := range sortedKeys(ix.accounts) {
		sa := ix.accounts[name]
		if sa.AutomountServiceAccountToken == nil || *sa.AutomountServiceAccountToken {
			add("ServiceAccount %q: automountServiceAccountToken must be false", name)
		}
	}
	for _, name := range sortedKeys(ix.pdbs) {
		p := ix.pdbs[name]
		if p.Spec.Selector == nil || len(ix.deploymentsSelectedBy(p.Spec.Selector.MatchLabels)) == 0 {
			add("PodDisruptionBudget %q selects no Deployment", name)
		}
		if p.Spec.MinAvailable == nil && p.Spec.MaxUnavailable == nil {
			add("PodDisruptionBudget %q: neither minAvailable nor maxUnavailable", name)
		}
	}
	for _, name := range sortedKeys(ix.hpas) {
		h := ix.hpas[name]
		ref := h.Spec.ScaleTargetRef
		d, ok := ix.deployments[ref.Name]
		if ref.Kind != "Deployment" || !ok {
			add("HorizontalPodAutoscaler %q: target %s %q not found", name, ref.Kind, ref.Name)
			continue
		}
		if h.Spec.MinReplicas == nil || *h.Spec.MinReplicas < 2 || h.Spec.MaxReplicas < *h.Spec.MinReplicas {
			add("HorizontalPodAutoscaler %q: want 2 <= minReplicas <= maxReplicas", name)
		}
		for _, m := range h.Spec.Metrics {
			if m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil {
				for _, c := range d.Spec.Template.Spec.Containers {
					if _, ok := c.Resources.Requests[m.Resource.Name]; !ok {
						add("HorizontalPodAutoscaler %q scales on %s but container %q requests none", name, m.Resource.Name, c.Name)
					}
				}
			}
		}
	}
	for _, name := range sortedKeys(ix.ingresses) {
		errs = append(errs, checkIngress(ix, ix.ingresses[name], tg)...)
	}
	errs = append(errs, checkNetworkPolicies(ix, tg)...)

	if tg.prod {
		for _, name := range sortedKeys(ix.deployments) {
			d := ix.deployments[name]
			if d.Spec.Replicas == nil || *d.Spec.Replicas < 2 {
				add("Deployment %q: prod needs at least 2 replicas", name)
			}
			if len(ix.pdbsFor(d)) == 0 {
				add("Deployment %q: prod needs a PodDisruptionBudget", name)
			}
		}
		for _, want := range []string{"gateway", "projects"} {
			if h, ok := ix.hpas[want]; !ok || h.Spec.ScaleTargetRef.Name != want {
				add("HorizontalPodAutoscaler for %q missing", want)
			}
		}
		if len(ix.ingresses) == 0 {
			add("prod: no Ingress for the gateway")
		}
	} else {
		if len(ix.ingresses) > 0 {
			add("Ingress only belongs in the prod overlay")
		}
	}
	if tg.dev {
		for _, name := range sortedKeys(ix.deployments) {
			if r := ix.deployments[name].Spec.Replicas; r == nil || *r != 1 {
				add("Deployment %q: dev runs 1 replica", name)
			}
		}
	}
	return errs
}

func checkDeployment(ix *index, d *appsv1.Deployment, tg target) []error {
	var errs []error
	add := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf("Deployment %q: "+format, append([]any{d.Name}, a...)...))
	}
	pod := d.Spec.Template.Spec
	podLabels := d.Spec.Template.Labels

	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil || sel.Empty() || !sel.Matches(labels.Set(podLabels)) {
		add("selector does not match its pod template labels")
	}
	if podLabels[labelName] != d.Name || podLabels[labelPartOf] != partOf {
		add("pod template needs labels %s=%s and %s=%s", labelName, d.Name, labelPartOf, partOf)
	}

	// Identity.
	if pod.ServiceAccountName == "" {
		add("no serviceAccountName")
	} else if _, ok := ix.accounts[pod.ServiceAccountName]; !ok {
		add("ServiceAccount %q not found", pod.ServiceAccountName)
	}
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		add("automountServiceAccountToken must be false")
	}

	// Pod security context.
	psc := pod.SecurityContext
	switch psc {
	case nil:
		add("no pod securityContext")
	default:
		if psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot {
			add("runAsNonRoot must be true")
		}
		if psc.RunAsUser == nil || *psc.RunAsUser != uid {
			add("runAsUser must be %d", uid)
		}
		if psc.FSGroup == nil {
			add("no fsGroup")
		}
		if psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
			add("seccompProfile must be RuntimeDefault")
		}
	}
	if g := pod.TerminationGracePeriodSeconds; g == nil || *g != grace {
		add("terminationGracePeriodSeconds must be %d", grace)
	}

	// /tmp is the only writable place.
	tmpVolume := ""
	for _, v := range pod.Volumes {
		if v.EmptyDir != nil {
			tmpVolume = v.Name
		}
	}
	if tmpVolume == "" {
		add("no emptyDir volume for /tmp")
	}

	if len(pod.Containers) != 1 {
		add("want exactly one container, got %d", len(pod.Containers))
		return errs
	}
	main := pod.Containers[0]
	all := append(slices.Clone(pod.InitContainers), pod.Containers...)
	for _, c := range all {
		errs = append(errs, checkContainer(ix, d.Name, c, tmpVolume, tg)...)
	}

	// Probes on the main container. Every service is probed over gRPC
	// health on its own port ("liveness" for startup and liveness, the
	// empty name, which follows /readyz, for readiness). The gateway serves
	// no gRPC health: HTTP on a named port, and it is ready when it is
	// itself (its /readyz asks every service, and a dependency down must
	// not take every gateway pod out).
	portNames := map[string]int32{}
	for _, p := range main.Ports {
		portNames[p.Name] = p.ContainerPort
	}
	for _, pr := range []struct {
		kind, path, service string
		p                   *corev1.Probe
	}{
		{"startupProbe", "/healthz", "liveness", main.StartupProbe},
		{"livenessProbe", "/healthz", "liveness", main.LivenessProbe},
		{"readinessProbe", "/healthz", "", main.ReadinessProbe},
	} {
		if main.Name != "gateway" {
			if pr.p == nil || pr.p.GRPC == nil {
				add("container %q: no grpc %s", main.Name, pr.kind)
				continue
			}
			if pr.p.GRPC.Port != portNames["http"] || pr.p.GRPC.Port == 0 {
				add("container %q: %s grpc port %d, want the http port %d", main.Name, pr.kind, pr.p.GRPC.Port, portNames["http"])
			}
			if got := ptrString(pr.p.GRPC.Service); got != pr.service {
				add("container %q: %s grpc service %q, want %q", main.Name, pr.kind, got, pr.service)
			}
			continue
		}
		if pr.p == nil || pr.p.HTTPGet == nil {
			add("container %q: no httpGet %s", main.Name, pr.kind)
			continue
		}
		if pr.p.HTTPGet.Path != pr.path {
			add("container %q: %s path %q, want %q", main.Name, pr.kind, pr.p.HTTPGet.Path, pr.path)
		}
		if pn := pr.p.HTTPGet.Port; pn.StrVal == "" || portNames[pn.StrVal] == 0 {
			add("container %q: %s must use a named container port, got %q", main.Name, pr.kind, pn.String())
		}
	}
	if main.Lifecycle != nil && main.Lifecycle.PreStop != nil && main.Lifecycle.PreStop.Sleep != nil {
		if s := main.Lifecycle.PreStop.Sleep.Seconds; s+drainBudget >= grace {
			add("preStop sleep %ds + %ds drain does not fit the %ds grace period", s, drainBudget, grace)
		}
	}

	// Runtime contract.
	var svc *service
	for i := range services {
		if services[i].name == d.Name {
			svc = &services[i]
		}
	}
	if svc == nil {
		if !tg.partial {
			add("not part of the documented contract")
		}
		return errs
	}
	binary := []string{"/app/" + d.Name}
	if !slices.Equal(main.Command, binary) || !slices.Equal(main.Args, []string{"serve"}) {
		add("container %q must run %s serve, got %v %v", main.Name, binary[0], main.Command, main.Args)
	}
	if portNames["http"] != svc.port {
		add("container port http must be %d", svc.port)
	}
	env := envMap(main.Env)
	if v := env[svc.addrEnv]; v == nil || v.Value != fmt.Sprintf(":%d", svc.port) {
		add("%s must be \":%d\"", svc.addrEnv, svc.port)
	}
	dbRef := env["DATABASE_URL"]
	switch {
	case svc.db && (dbRef == nil || dbRef.ValueFrom == nil || dbRef.ValueFrom.SecretKeyRef == nil ||
		dbRef.ValueFrom.SecretKeyRef.Name != d.Name+"-db" || dbRef.ValueFrom.SecretKeyRef.Key != "url"):
		add("DATABASE_URL must come from Secret %s-db key url", d.Name)
	case !svc.db && dbRef != nil:
		add("has no database but sets DATABASE_URL")
	}
	if d.Name == "gateway" {
		if v := env["APP_ENV"]; v == nil || v.Value != "production" {
			add("APP_ENV must be production")
		}
		if v := env["WEB_DIR"]; v == nil || v.Value != "/app/web" {
			add("WEB_DIR must be /app/web")
		}
		for _, s := range services {
			if s.name == "gateway" {
				continue
			}
			key := strings.ToUpper(s.name) + "_TARGET"
			want := fmt.Sprintf("%s:%d", s.name, s.port)
			if v := env[key]; v == nil || v.Value != want {
				add("%s must be %q", key, want)
			}
		}
	} else {
		if env["NATS_URL"] == nil {
			add("no NATS_URL")
		}
		if d.Name != "auth" {
			if v := env["AUTH_TARGET"]; v == nil || v.Value != "auth:9001" {
				add("AUTH_TARGET must be auth:9001")
			}
		}
	}
	// Every service and the gateway sign and check service tokens with
	// one key (internal RPCs refuse a call without one).
	if v := env["SERVICE_TOKEN_KEY"]; v == nil || v.ValueFrom == nil || v.ValueFrom.SecretKeyRef == nil ||
		v.ValueFrom.SecretKeyRef.Name != "service-token" || v.ValueFrom.SecretKeyRef.Key != "key" || ptrBool(v.ValueFrom.SecretKeyRef.Optional) {
		add("SERVICE_TOKEN_KEY must come from Secret service-token key key (not optional)")
	}
	if env["AUTH_INTERNAL_TOKEN"] != nil {
		add("AUTH_INTERNAL_TOKEN is gone: internal calls carry service tokens (SERVICE_TOKEN_KEY)")
	}
	if d.Name == "auth" {
		for k, ref := range map[string][2]string{
			"AUTH_SIGNING_KEY":    {"auth-keys", "signing-key"},
			"OTP_HMAC_KEY":        {"auth-keys", "otp-hmac-key"},
			"SMTP_USERNAME":       {"smtp", ""},
			"SMTP_PASSWORD":       {"smtp", ""},
			"LINE_CHANNEL_ID":     {"line", ""},
			"LINE_CHANNEL_SECRET": {"line", ""},
		} {
			v := env[k]
			if v == nil || v.ValueFrom == nil || v.ValueFrom.SecretKeyRef == nil ||
				v.ValueFrom.SecretKeyRef.Name != ref[0] || (ref[1] != "" && v.ValueFrom.SecretKeyRef.Key != ref[1]) {
				add("%s must come from Secret %s", k, ref[0])
			}
		}
		for _, k := range []string{"SMTP_HOST", "SMTP_PORT", "SMTP_TLS", "MAIL_FROM"} {
			if v := env[k]; v == nil || v.ValueFrom == nil || v.ValueFrom.ConfigMapKeyRef == nil {
				add("%s must come from the ConfigMap", k)
			}
		}
	}

	// Migrations: DB services run `/app/<svc> migrate` first, as the server would.
	var migrate *corev1.Container
	for i, c := range pod.InitContainers {
		if slices.Equal(c.Args, []string{"migrate"}) || slices.Contains(c.Command, "migrate") {
			migrate = &pod.InitContainers[i]
		}
	}
	switch {
	case svc.db && migrate == nil:
		add("owns a database but has no migrate initContainer")
	case svc.db:
		if !slices.Equal(migrate.Command, binary) || !slices.Equal(migrate.Args, []string{"migrate"}) {
			add("initContainer %q must run %s migrate, got %v %v", migrate.Name, binary[0], migrate.Command, migrate.Args)
		}
		if migrate.Image != main.Image {
			add("migrate image %q differs from %q", migrate.Image, main.Image)
		}
		if !reflect.DeepEqual(migrate.Env, main.Env) || !reflect.DeepEqual(migrate.EnvFrom, main.EnvFrom) {
			add("migrate env differs from the server's")
		}
		if !reflect.DeepEqual(migrate.SecurityContext, main.SecurityContext) {
			add("migrate securityContext differs from the server's")
		}
		if migrate.ImagePullPolicy != main.ImagePullPolicy {
			add("migrate imagePullPolicy differs from the server's")
		}
	case migrate != nil:
		add("has no database but runs migrate")
	}
	return errs
}

func checkContainer(ix *index, owner string, c corev1.Container, tmpVolume string, tg target) []error {
	var errs []error
	add := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf("Deployment %q container %q: "+format, append([]any{owner, c.Name}, a...)...))
	}
	if c.Image == "" {
		add("no image")
	} else if tg.namespace != "" {
		// Overlays must pin a tag (or digest); prod must not use :latest or a moving dev tag.
		tag := imageTag(c.Image)
		switch {
		case tag == "" || tag == "latest":
			add("image %q: no tag or :latest", c.Image)
		case tg.prod && !strings.HasPrefix(tag, "sha256:") && !looksPinned(tag):
			add("image %q: prod needs a pinned version tag or digest", c.Image)
		}
	}
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, okReq := c.Resources.Requests[r]
		lim, okLim := c.Resources.Limits[r]
		if !okReq || req.IsZero() {
			add("no %s request", r)
		}
		if !okLim || lim.IsZero() {
			add("no %s limit", r)
		}
		if okReq && okLim && req.Cmp(lim) > 0 {
			add("%s request above limit", r)
		}
	}
	sc := c.SecurityContext
	if sc == nil {
		add("no securityContext")
	} else {
		if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
			add("readOnlyRootFilesystem must be true")
		}
		if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
			add("allowPrivilegeEscalation must be false")
		}
		if sc.Privileged != nil && *sc.Privileged {
			add("must not be privileged")
		}
		if sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") || len(sc.Capabilities.Add) > 0 {
			add("capabilities must drop ALL and add none")
		}
		if sc.RunAsNonRoot != nil && !*sc.RunAsNonRoot {
			add("runAsNonRoot overridden to false")
		}
		if sc.RunAsUser != nil && *sc.RunAsUser == 0 {
			add("runs as root")
		}
	}
	hasTmp := false
	for _, m := range c.VolumeMounts {
		if m.MountPath == "/tmp" && m.Name == tmpVolume && tmpVolume != "" {
			hasTmp = true
		}
	}
	if !hasTmp {
		add("no emptyDir mounted at /tmp")
	}
	// References into ConfigMaps must resolve; Secrets are created out of band
	// and must be documented in README.md.
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			continue
		}
		if r := e.ValueFrom.ConfigMapKeyRef; r != nil {
			cm, ok := ix.configMaps[r.Name]
			optional := r.Optional != nil && *r.Optional
			switch {
			case !ok && !tg.partial:
				add("env %s: ConfigMap %q not rendered", e.Name, r.Name)
			case ok && !optional:
				if _, has := cm.Data[r.Key]; !has {
					add("env %s: ConfigMap %q has no key %q", e.Name, r.Name, r.Key)
				}
			}
		}
		if r := e.ValueFrom.SecretKeyRef; r != nil && !documentedSecret(r.Name, r.Key) {
			add("env %s: Secret %q key %q is not documented in README.md", e.Name, r.Name, r.Key)
		}
	}
	for _, ef := range c.EnvFrom {
		if ef.SecretRef != nil && !documentedSecret(ef.SecretRef.Name, "") {
			add("envFrom: Secret %q is not documented in README.md", ef.SecretRef.Name)
		}
	}
	return errs
}

func checkService(ix *index, s *corev1.Service) []error {
	var errs []error
	add := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf("Service %q: "+format, append([]any{s.Name}, a...)...))
	}
	if len(s.Spec.Selector) == 0 {
		add("no selector")
		return errs
	}
	targets := ix.deploymentsSelectedBy(s.Spec.Selector)
	if len(targets) == 0 {
		add("selector %v matches no Deployment's pod labels", s.Spec.Selector)
		return errs
	}
	for _, d := range targets {
		ports := map[string]int32{}
		numbers := map[int32]bool{}
		for _, c := range d.Spec.Template.Spec.Containers {
			for _, p := range c.Ports {
				ports[p.Name] = p.ContainerPort
				numbers[p.ContainerPort] = true
			}
		}
		for _, p := range s.Spec.Ports {
			tp := p.TargetPort
			switch {
			case tp.StrVal != "" && ports[tp.StrVal] == 0:
				add("port %q: targetPort %q is not a port of Deployment %q", p.Name, tp.StrVal, d.Name)
			case tp.StrVal == "" && tp.IntVal != 0 && !numbers[tp.IntVal]:
				add("port %q: targetPort %d is not a port of Deployment %q", p.Name, tp.IntVal, d.Name)
			case tp.StrVal == "" && tp.IntVal == 0 && !numbers[p.Port]:
				add("port %q: port %d is not a port of Deployment %q", p.Name, p.Port, d.Name)
			}
		}
	}
	// Clients dial "<svc>:<port>" (gateway targets, AUTH_TARGET): the Service
	// port must equal the documented port; the gateway is exposed on 80.
	for _, sv := range services {
		if sv.name != s.Name {
			continue
		}
		want := sv.port
		if sv.name == "gateway" {
			want = 80
		}
		if len(s.Spec.Ports) != 1 || s.Spec.Ports[0].Port != want {
			add("must expose exactly port %d", want)
		}
	}
	return errs
}

func checkIngress(ix *index, ing *networkingv1.Ingress, tg target) []error {
	var errs []error
	add := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf("Ingress %q: "+format, append([]any{ing.Name}, a...)...))
	}
	if tg.prod && len(ing.Spec.TLS) == 0 {
		add("no TLS")
	}
	hosts := map[string]bool{}
	for _, t := range ing.Spec.TLS {
		if t.SecretName == "" {
			add("TLS entry without secretName")
		}
		for _, h := range t.Hosts {
			hosts[h] = true
		}
	}
	for _, r := range ing.Spec.Rules {
		if tg.prod && !hosts[r.Host] {
			add("host %q is not covered by TLS", r.Host)
		}
		if r.HTTP == nil {
			continue
		}
		for _, p := range r.HTTP.Paths {
			b := p.Backend.Service
			if b == nil {
				add("path %q: no service backend", p.Path)
				continue
			}
			if b.Name != "gateway" {
				add("path %q: only the gateway is public, got %q", p.Path, b.Name)
			}
			s, ok := ix.services[b.Name]
			if !ok {
				add("path %q: Service %q not found", p.Path, b.Name)
				continue
			}
			found := false
			for _, sp := range s.Spec.Ports {
				if (b.Port.Name != "" && sp.Name == b.Port.Name) || (b.Port.Number != 0 && sp.Port == b.Port.Number) {
					found = true
				}
			}
			if !found {
				add("path %q: Service %q has no port %v", p.Path, b.Name, b.Port)
			}
		}
	}
	return errs
}

func (ix *index) configMap(prefix string) (*corev1.ConfigMap, bool) {
	for name, cm := range ix.configMaps {
		if name == prefix || strings.HasPrefix(name, prefix+"-") {
			return cm, true
		}
	}
	return nil, false
}

func (ix *index) deploymentsSelectedBy(sel map[string]string) []*appsv1.Deployment {
	var out []*appsv1.Deployment
	if len(sel) == 0 {
		return nil
	}
	s := labels.SelectorFromSet(sel)
	for _, name := range sortedKeys(ix.deployments) {
		d := ix.deployments[name]
		if s.Matches(labels.Set(d.Spec.Template.Labels)) {
			out = append(out, d)
		}
	}
	return out
}

func (ix *index) pdbsFor(d *appsv1.Deployment) []*policyv1.PodDisruptionBudget {
	var out []*policyv1.PodDisruptionBudget
	for _, p := range ix.pdbs {
		if p.Spec.Selector == nil {
			continue
		}
		s, err := metav1.LabelSelectorAsSelector(p.Spec.Selector)
		if err == nil && !s.Empty() && s.Matches(labels.Set(d.Spec.Template.Labels)) {
			out = append(out, p)
		}
	}
	return out
}

func metaOf(o runtime.Object) (metav1.Object, error) {
	m, ok := o.(metav1.Object)
	if !ok {
		return nil, fmt.Errorf("%T has no object metadata", o)
	}
	return m, nil
}

func envMap(env []corev1.EnvVar) map[string]*corev1.EnvVar {
	m := map[string]*corev1.EnvVar{}
	for i := range env {
		m[env[i].Name] = &env[i]
	}
	return m
}

// imageTag returns the tag (or "sha256:..." digest) of an image reference.
func imageTag(image string) string {
	if i := strings.Index(image, "@"); i >= 0 {
		return image[i+1:]
	}
	last := image[strings.LastIndex(image, "/")+1:]
	if i := strings.LastIndex(last, ":"); i >= 0 {
		return last[i+1:]
	}
	return ""
}

// looksPinned accepts version tags such as 1.2.3, v1.2.3, 1.2.3-rc.1 or a
// git sha; it rejects moving names (latest, dev, main, stable).
func looksPinned(tag string) bool {
	t := strings.TrimPrefix(tag, "v")
	if parts := strings.SplitN(strings.SplitN(t, "-", 2)[0], ".", 3); len(parts) == 3 {
		for _, p := range parts {
			if _, err := strconv.Atoi(p); err != nil {
				return false
			}
		}
		return true
	}
	if len(tag) >= 7 && strings.Trim(tag, "0123456789abcdef") == "" {
		return true
	}
	return false
}

var readme = func() string {
	b, err := os.ReadFile("README.md")
	if err != nil {
		return ""
	}
	return string(b)
}()

// documentedSecret reports whether README.md tells operators to create the
// secret (and key, when given): a "secret generic <name>" line with
// "--from-literal=<key>=" or "--from-file=<key>=".
func documentedSecret(name, key string) bool {
	for _, block := range strings.Split(readme, "kubectl create secret") {
		fields := strings.Fields(block)
		if len(fields) < 2 || fields[1] != name {
			continue
		}
		if key == "" || strings.Contains(block, "--from-literal="+key+"=") || strings.Contains(block, "--from-file="+key+"=") {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestManifests renders base and both overlays, decodes strictly and checks.
func TestManifests(t *testing.T) {
	for _, tg := range targets {
		t.Run(tg.dir, func(t *testing.T) {
			objs, err := render(tg.dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, err := range validate(objs, tg) {
				t.Error(err)
			}
			t.Logf("%s: %d objects", tg.dir, len(objs))
		})
	}
}

// TestEachServiceRendersAlone: every base/<svc> is its own kustomization with
// exactly a ServiceAccount, a Deployment, a Service and a NetworkPolicy.
func TestEachServiceRendersAlone(t *testing.T) {
	for _, s := range services {
		t.Run(s.name, func(t *testing.T) {
			objs, err := render(filepath.Join("base", s.name))
			if err != nil {
				t.Fatal(err)
			}
			var kinds []string
			for _, o := range objs {
				kinds = append(kinds, strings.TrimPrefix(fmt.Sprintf("%T", o), "*"))
			}
			sort.Strings(kinds)
			want := []string{"v1.Deployment", "v1.NetworkPolicy", "v1.Service", "v1.ServiceAccount"}
			if !slices.Equal(kinds, want) {
				t.Fatalf("kinds %v, want %v", kinds, want)
			}
			for _, err := range validate(objs, target{dir: s.name, partial: true}) {
				t.Error(err)
			}
		})
	}
}

// TestBrokenManifestsAreRejected: each fixture under testdata/broken must fail
// with the expected messages, so the checks above cannot silently rot.
func TestBrokenManifestsAreRejected(t *testing.T) {
	cases := []struct {
		dir string
		tg  target
		// decodeErr: the strict decoder must fail with this text.
		decodeErr string
		// wantErrs: validate must report each of these texts.
		wantErrs []string
	}{
		{
			dir:       "typo",
			decodeErr: `unknown field "spec.template.spec.containers[0].imagee"`,
		},
		{
			dir:       "wrong-type",
			decodeErr: "cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32",
		},
		{
			dir: "insecure",
			tg:  target{namespace: "broken", prod: true, partial: true},
			wantErrs: []string{
				`Deployment "auth": runAsNonRoot must be true`,
				`container "auth": readOnlyRootFilesystem must be true`,
				`container "auth": no memory limit`,
				`container "auth": no grpc readinessProbe`,
				`container "auth": image "bidradar/auth:latest": no tag or :latest`,
				`Deployment "auth": owns a database but has no migrate initContainer`,
				`Deployment "auth": prod needs at least 2 replicas`,
				`Deployment "auth": prod needs a PodDisruptionBudget`,
			},
		},
		{
			dir: "dangling",
			tg:  target{partial: true},
			wantErrs: []string{
				`Service "projects": selector map[app.kubernetes.io/name:project] matches no Deployment's pod labels`,
				`Deployment "projects": ServiceAccount "project" not found`,
				`Deployment "projects": DATABASE_URL must come from Secret projects-db key url`,
				`Secret "projects-database" key "url" is not documented in README.md`,
				`Secret "leaked" is rendered`,
			},
		},
		{
			dir: "netpol",
			tg:  target{partial: true},
			wantErrs: []string{
				`Deployment "projects": INTERESTS_TARGET=interests:9003: NetworkPolicy ingress of "interests" does not admit "projects"`,
				`NetworkPolicy "projects" admits traffic from outside the namespace`,
				`Deployment "projects": has DATABASE_URL but its NetworkPolicy egress does not allow PostgreSQL`,
				`NetworkPolicy egress of "interests" allows "subscription" (TCP 9004), which it does not call`,
				`Deployment "subscription": no NetworkPolicy of its own`,
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.dir, func(t *testing.T) {
			objs, err := render(filepath.Join("testdata", "broken", tc.dir))
			if tc.decodeErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.decodeErr) {
					t.Fatalf("render error = %v, want one containing %q", err, tc.decodeErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("fixture must decode (it is broken on purpose only for the custom checks): %v", err)
			}
			var got []string
			for _, e := range validate(objs, tc.tg) {
				got = append(got, e.Error())
			}
			for _, want := range tc.wantErrs {
				if !slices.ContainsFunc(got, func(g string) bool { return strings.Contains(g, want) }) {
					t.Errorf("missing error %q; got:\n  %s", want, strings.Join(got, "\n  "))
				}
			}
		})
	}
}

// TestDockerfileMatchesManifests: the image the manifests run is the one the
// root Dockerfile builds (non-root uid, /app/<svc> entrypoint, gateway web dir).
func TestDockerfileMatchesManifests(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "Dockerfile"))
	if err != nil {
		t.Skipf("no Dockerfile next to deploy/: %v", err)
	}
	df := string(b)
	for _, want := range []string{
		"ARG SERVICE",
		"gcr.io/distroless/static-debian12:nonroot",
		fmt.Sprintf("USER %d:%d", uid, uid),
		"/app/web",
		"CGO_ENABLED=0",
		"./gateway/cmd/gateway",
		"./services/$SERVICE/cmd/$SERVICE",
		"/out/$SERVICE",
	} {
		if !strings.Contains(df, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
}

func ptrString(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func ptrBool(p *bool) bool { return p != nil && *p }
