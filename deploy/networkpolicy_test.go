package deploy_test

// NetworkPolicy checks. The policies are evaluated the way the API defines
// them: a pod is isolated for a direction once any policy selecting it has
// that policy type, and then a connection is allowed when any rule of any such
// policy matches both the peer and the port. The call graph comes from the
// Deployments themselves: every *_TARGET env var ("host:port") is a call to
// the Service "host".

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// endpoint is one side of a connection: a pod of this namespace (labels set)
// or anything else (external: another namespace, a node, outside the cluster).
type endpoint struct {
	labels   map[string]string
	external bool
}

// port is a destination port; name is set when the destination is a pod that
// declares the port under that name (policies may use named ports).
type port struct {
	number   int32
	name     string
	protocol corev1.Protocol
}

func (p port) String() string { return fmt.Sprintf("%s %d", p.protocol, p.number) }

// call is one *_TARGET of a Deployment resolved to the pods behind it.
type call struct {
	env, value string
	callee     *appsv1.Deployment
	port       port
}

// appliesTo reports whether np isolates pods with these labels in direction t.
func appliesTo(np *networkingv1.NetworkPolicy, podLabels map[string]string, t networkingv1.PolicyType) bool {
	sel, err := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector)
	if err != nil || !sel.Matches(labels.Set(podLabels)) {
		return false
	}
	types := np.Spec.PolicyTypes
	if len(types) == 0 { // the API's default
		types = []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}
		if len(np.Spec.Egress) > 0 {
			types = append(types, networkingv1.PolicyTypeEgress)
		}
	}
	return slices.Contains(types, t)
}

// peerMatches: does a rule's peer select the endpoint? ipBlocks are taken to
// cover every external address and no pod of the namespace (pod IPs in an
// ipBlock are implementation-defined); a namespaceSelector is matched against
// the namespace's labels, kubernetes.io/metadata.name included.
func peerMatches(p networkingv1.NetworkPolicyPeer, e endpoint, nsLabels map[string]string) bool {
	if p.IPBlock != nil {
		return e.external
	}
	if e.external {
		return false // pod and namespace selectors select pods; we model an external address
	}
	if p.NamespaceSelector != nil {
		sel, err := metav1.LabelSelectorAsSelector(p.NamespaceSelector)
		if err != nil || !sel.Matches(labels.Set(nsLabels)) {
			return false
		}
	}
	if p.PodSelector == nil {
		return true
	}
	sel, err := metav1.LabelSelectorAsSelector(p.PodSelector)
	return err == nil && sel.Matches(labels.Set(e.labels))
}

func portMatches(ps []networkingv1.NetworkPolicyPort, dst port) bool {
	if len(ps) == 0 {
		return true
	}
	for _, p := range ps {
		proto := corev1.ProtocolTCP
		if p.Protocol != nil {
			proto = *p.Protocol
		}
		if proto != dst.protocol {
			continue
		}
		switch {
		case p.Port == nil:
			return true
		case p.Port.StrVal != "":
			if dst.name != "" && p.Port.StrVal == dst.name {
				return true
			}
		case p.EndPort != nil:
			if dst.number >= p.Port.IntVal && dst.number <= *p.EndPort {
				return true
			}
		case p.Port.IntVal == dst.number:
			return true
		}
	}
	return false
}

// ruleAdmitsOutside: an ingress rule that lets in something other than a pod
// selected by a plain podSelector of this namespace.
func ruleAdmitsOutside(r networkingv1.NetworkPolicyIngressRule) bool {
	if len(r.From) == 0 {
		return true
	}
	for _, p := range r.From {
		if p.IPBlock != nil || p.NamespaceSelector != nil {
			return true
		}
	}
	return false
}

type netpols struct {
	ix       *index
	nsLabels map[string]string
}

func newNetpols(ix *index, tg target) netpols {
	ns := map[string]string{"kubernetes.io/metadata.name": tg.namespace}
	if n, ok := ix.namespaces[tg.namespace]; ok {
		for k, v := range n.Labels {
			ns[k] = v
		}
	}
	return netpols{ix: ix, nsLabels: ns}
}

// allowed: may a connection from src to dst on dstPort happen, as far as the
// policies of this render say? Both ends' policies must allow it.
func (n netpols) allowed(src, dst endpoint, dstPort port) (egress, ingress bool) {
	return n.allowedOne(src, dst, dstPort, networkingv1.PolicyTypeEgress),
		n.allowedOne(dst, src, dstPort, networkingv1.PolicyTypeIngress)
}

// allowedOne evaluates the policies of self (a pod of this namespace, or an
// external end, which no policy here isolates) for traffic with peer.
func (n netpols) allowedOne(self, peer endpoint, dstPort port, t networkingv1.PolicyType) bool {
	if self.external {
		return true
	}
	isolated := false
	for _, name := range sortedKeys(n.ix.netpols) {
		np := n.ix.netpols[name]
		if !appliesTo(np, self.labels, t) {
			continue
		}
		isolated = true
		if t == networkingv1.PolicyTypeIngress {
			for _, r := range np.Spec.Ingress {
				if portMatches(r.Ports, dstPort) && (len(r.From) == 0 || slices.ContainsFunc(r.From, func(p networkingv1.NetworkPolicyPeer) bool { return peerMatches(p, peer, n.nsLabels) })) {
					return true
				}
			}
		} else {
			for _, r := range np.Spec.Egress {
				if portMatches(r.Ports, dstPort) && (len(r.To) == 0 || slices.ContainsFunc(r.To, func(p networkingv1.NetworkPolicyPeer) bool { return peerMatches(p, peer, n.nsLabels) })) {
					return true
				}
			}
		}
	}
	return !isolated
}

// httpPort is the port named "http" of a Deployment's server container.
func httpPort(d *appsv1.Deployment) (port, bool) {
	for _, c := range d.Spec.Template.Spec.Containers {
		for _, p := range c.Ports {
			if p.Name == "http" {
				proto := p.Protocol
				if proto == "" {
					proto = corev1.ProtocolTCP
				}
				return port{p.ContainerPort, p.Name, proto}, true
			}
		}
	}
	return port{}, false
}

// calls resolves every *_TARGET env var of d (any container) through the
// Service it names to the pods and container port behind it. Targets whose
// Service is not in this render are reported only for whole applications.
func (n netpols) calls(d *appsv1.Deployment, tg target) ([]call, []error) {
	var out []call
	var errs []error
	add := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf("Deployment %q: "+format, append([]any{d.Name}, a...)...))
	}
	seen := map[string]bool{}
	for _, c := range append(slices.Clone(d.Spec.Template.Spec.InitContainers), d.Spec.Template.Spec.Containers...) {
		for _, e := range c.Env {
			if !strings.HasSuffix(e.Name, "_TARGET") || seen[e.Name+"="+e.Value] {
				continue
			}
			seen[e.Name+"="+e.Value] = true
			host, portStr, err := net.SplitHostPort(e.Value)
			num, perr := strconv.Atoi(portStr)
			if err != nil || perr != nil || e.ValueFrom != nil {
				add("%s=%q is not host:port", e.Name, e.Value)
				continue
			}
			// "svc", "svc.<ns>", "svc.<ns>.svc...": only this namespace's Services.
			parts := strings.Split(host, ".")
			svcName := parts[0]
			if len(parts) > 1 && parts[1] != tg.namespace {
				add("%s=%s: not a Service of this namespace", e.Name, e.Value)
				continue
			}
			s, ok := n.ix.services[svcName]
			if !ok {
				if !tg.partial {
					add("%s=%s: Service %q not found", e.Name, e.Value, svcName)
				}
				continue
			}
			var sp *corev1.ServicePort
			for i := range s.Spec.Ports {
				if s.Spec.Ports[i].Port == int32(num) {
					sp = &s.Spec.Ports[i]
				}
			}
			if sp == nil {
				add("%s=%s: Service %q has no port %d", e.Name, e.Value, svcName, num)
				continue
			}
			for _, callee := range n.ix.deploymentsSelectedBy(s.Spec.Selector) {
				dst, ok := containerPortFor(callee, *sp)
				if !ok {
					add("%s=%s: Service %q port %d reaches no container port of %q", e.Name, e.Value, svcName, num, callee.Name)
					continue
				}
				out = append(out, call{env: e.Name, value: e.Value, callee: callee, port: dst})
			}
		}
	}
	return out, errs
}

func containerPortFor(d *appsv1.Deployment, sp corev1.ServicePort) (port, bool) {
	proto := sp.Protocol
	if proto == "" {
		proto = corev1.ProtocolTCP
	}
	for _, c := range d.Spec.Template.Spec.Containers {
		for _, p := range c.Ports {
			tp := sp.TargetPort
			if (tp.StrVal != "" && tp.StrVal == p.Name) ||
				(tp.StrVal == "" && tp.IntVal != 0 && tp.IntVal == p.ContainerPort) ||
				(tp.StrVal == "" && tp.IntVal == 0 && sp.Port == p.ContainerPort) {
				return port{p.ContainerPort, p.Name, proto}, true
			}
		}
	}
	return port{}, false
}

// checkNetworkPolicies: every Deployment has a policy of its own; the
// namespace denies ingress by default; only the gateway's policy admits
// traffic from outside the namespace, and only on its http port; each
// *_TARGET is allowed by the caller's egress and the callee's ingress, and
// nothing else between the services is; egress reaches DNS, and PostgreSQL
// and NATS exactly when the Deployment has DATABASE_URL and NATS_URL.
func checkNetworkPolicies(ix *index, tg target) []error {
	var errs []error
	add := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	n := newNetpols(ix, tg)
	external := endpoint{external: true}
	pod := func(d *appsv1.Deployment) endpoint { return endpoint{labels: d.Spec.Template.Labels} }

	// A namespace-wide default deny of ingress (the whole application only:
	// a service applied alone does not lock down the namespace).
	if !tg.partial {
		found := false
		for _, np := range ix.netpols {
			if len(np.Spec.PodSelector.MatchLabels) == 0 && len(np.Spec.PodSelector.MatchExpressions) == 0 &&
				slices.Contains(np.Spec.PolicyTypes, networkingv1.PolicyTypeIngress) && len(np.Spec.Ingress) == 0 {
				found = true
			}
		}
		if !found {
			add("no default-deny NetworkPolicy for ingress (podSelector {}, policyTypes [Ingress], no rules)")
		}
	}

	// Each Deployment is isolated both ways by a policy that selects its pods.
	for _, name := range sortedKeys(ix.deployments) {
		d := ix.deployments[name]
		own := false
		for _, np := range ix.netpols {
			sel := np.Spec.PodSelector
			if (len(sel.MatchLabels) > 0 || len(sel.MatchExpressions) > 0) &&
				appliesTo(np, d.Spec.Template.Labels, networkingv1.PolicyTypeIngress) &&
				appliesTo(np, d.Spec.Template.Labels, networkingv1.PolicyTypeEgress) {
				own = true
			}
		}
		if !own {
			add("Deployment %q: no NetworkPolicy of its own (selecting its pods, policyTypes Ingress and Egress)", name)
		}
	}

	// Only the gateway's policy admits traffic from outside the namespace,
	// and only to the gateway's http port.
	for _, name := range sortedKeys(ix.netpols) {
		np := ix.netpols[name]
		var selected []string
		for _, dn := range sortedKeys(ix.deployments) {
			if appliesTo(np, ix.deployments[dn].Spec.Template.Labels, networkingv1.PolicyTypeIngress) {
				selected = append(selected, dn)
			}
		}
		for _, r := range np.Spec.Ingress {
			if !ruleAdmitsOutside(r) || cnpgOperatorAccess(np, r) {
				continue
			}
			if !slices.Equal(selected, []string{"gateway"}) {
				add("NetworkPolicy %q admits traffic from outside the namespace (a rule with no from, a namespaceSelector or an ipBlock); only the gateway's may", name)
				continue
			}
			gw := ix.deployments["gateway"]
			hp, _ := httpPort(gw)
			if len(r.Ports) == 0 {
				add("NetworkPolicy %q admits traffic from outside on every port; only %s (http) may be open", name, hp)
			}
			for _, p := range r.Ports {
				if !portMatches([]networkingv1.NetworkPolicyPort{p}, hp) {
					add("NetworkPolicy %q admits traffic from outside on %v; only %s (http) may be open", name, p.Port, hp)
				}
			}
		}
	}
	if gw, ok := ix.deployments["gateway"]; ok {
		if hp, ok := httpPort(gw); ok {
			if _, in := n.allowed(external, pod(gw), hp); !in {
				add("Deployment \"gateway\": its NetworkPolicy does not admit traffic from outside the namespace on %s (http)", hp)
			}
		}
	}

	// The call graph: each *_TARGET is allowed both ways; nothing else is.
	calls := map[[2]string]bool{}
	for _, name := range sortedKeys(ix.deployments) {
		d := ix.deployments[name]
		cs, cerrs := n.calls(d, tg)
		errs = append(errs, cerrs...)
		for _, c := range cs {
			calls[[2]string{d.Name, c.callee.Name}] = true
			out, in := n.allowed(pod(d), pod(c.callee), c.port)
			if !out {
				add("Deployment %q: %s=%s: NetworkPolicy egress of %q does not allow pods of %q on %s", d.Name, c.env, c.value, d.Name, c.callee.Name, c.port)
			}
			if !in {
				add("Deployment %q: %s=%s: NetworkPolicy ingress of %q does not admit %q on %s", d.Name, c.env, c.value, c.callee.Name, d.Name, c.port)
			}
		}
	}
	for _, a := range sortedKeys(ix.deployments) {
		for _, b := range sortedKeys(ix.deployments) {
			if a == b || calls[[2]string{a, b}] {
				continue
			}
			hp, ok := httpPort(ix.deployments[b])
			if !ok {
				continue
			}
			out, in := n.allowed(pod(ix.deployments[a]), pod(ix.deployments[b]), hp)
			if out {
				add("NetworkPolicy egress of %q allows %q (%s), which it does not call (no *_TARGET points to it)", a, b, hp)
			}
			if in && b != "gateway" { // the gateway is public by design
				add("NetworkPolicy ingress of %q admits %q, which does not call it (no *_TARGET points to it)", b, a)
			}
		}
	}

	// Infrastructure: DNS always; PostgreSQL and NATS exactly when used.
	dns := []port{{53, "", corev1.ProtocolUDP}, {53, "", corev1.ProtocolTCP}}
	for _, name := range sortedKeys(ix.deployments) {
		d := ix.deployments[name]
		for _, p := range dns {
			if out, _ := n.allowed(pod(d), external, p); !out {
				add("Deployment %q: NetworkPolicy egress does not allow DNS (%s)", name, p)
			}
		}
		env := map[string]bool{}
		for _, c := range d.Spec.Template.Spec.Containers {
			for _, e := range c.Env {
				env[e.Name] = true
			}
		}
		for _, dep := range []struct {
			env, what string
			port      port
		}{
			{"DATABASE_URL", "PostgreSQL", port{5432, "", corev1.ProtocolTCP}},
			{"NATS_URL", "NATS", port{4222, "", corev1.ProtocolTCP}},
		} {
			out, _ := n.allowed(pod(d), external, dep.port)
			switch {
			case env[dep.env] && !out:
				add("Deployment %q: has %s but its NetworkPolicy egress does not allow %s (%s)", name, dep.env, dep.what, dep.port)
			case !env[dep.env] && out:
				add("Deployment %q: has no %s but its NetworkPolicy egress allows %s (%s)", name, dep.env, dep.what, dep.port)
			}
		}
	}
	return errs
}
