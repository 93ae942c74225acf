package deploy_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// cnpgCluster is the part of CloudNativePG's Cluster
// (postgresql.cnpg.io/v1, CRD clusters.postgresql.cnpg.io) that
// overlays/prod-ha sets, field for field as the CRD names them: decoded
// strictly, a misspelt or misplaced field fails as client-go's scheme
// fails one of a core kind. A field the overlay starts to use is added
// here with the CRD's name and type.
type cnpgCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Instances             int    `json:"instances"`
		ImageName             string `json:"imageName"`
		PrimaryUpdateStrategy string `json:"primaryUpdateStrategy"`
		EnablePDB             *bool  `json:"enablePDB"`
		Storage               struct {
			Size string `json:"size"`
		} `json:"storage"`
		WalStorage *struct {
			Size string `json:"size"`
		} `json:"walStorage"`
		Affinity struct {
			EnablePodAntiAffinity *bool  `json:"enablePodAntiAffinity"`
			PodAntiAffinityType   string `json:"podAntiAffinityType"`
			TopologyKey           string `json:"topologyKey"`
		} `json:"affinity"`
		Bootstrap struct {
			InitDB struct {
				Database      string `json:"database"`
				Owner         string `json:"owner"`
				Encoding      string `json:"encoding"`
				LocaleCollate string `json:"localeCollate"`
				LocaleCType   string `json:"localeCType"`
			} `json:"initdb"`
		} `json:"bootstrap"`
		PostgreSQL struct {
			Parameters map[string]string `json:"parameters"`
		} `json:"postgresql"`
		Resources corev1.ResourceRequirements `json:"resources"`
	} `json:"spec"`
}

func (c *cnpgCluster) DeepCopyObject() runtime.Object { cp := *c; return &cp }

func isCNPGCluster(doc []byte) bool {
	return bytes.Contains(doc, []byte("apiVersion: postgresql.cnpg.io/")) && bytes.Contains(doc, []byte("\nkind: Cluster"))
}

func decodeCNPGCluster(doc []byte) (*cnpgCluster, error) {
	var c cnpgCluster
	if err := yaml.UnmarshalStrict(doc, &c); err != nil {
		return nil, fmt.Errorf("CloudNativePG Cluster: %w", err)
	}
	if c.APIVersion != "postgresql.cnpg.io/v1" {
		return nil, fmt.Errorf("CloudNativePG Cluster: apiVersion %q, want postgresql.cnpg.io/v1", c.APIVersion)
	}
	return &c, nil
}

// cnpgOperatorAccess reports a NetworkPolicy rule admitting the
// CloudNativePG operator's namespace to its instances only: the one rule
// from outside the namespace besides the gateway's.
func cnpgOperatorAccess(np *networkingv1.NetworkPolicy, r networkingv1.NetworkPolicyIngressRule) bool {
	if np.Spec.PodSelector.MatchLabels["cnpg.io/cluster"] == "" || len(r.From) != 1 || r.From[0].NamespaceSelector == nil ||
		r.From[0].PodSelector != nil || r.From[0].NamespaceSelector.MatchLabels["kubernetes.io/metadata.name"] != "cnpg-system" {
		return false
	}
	for _, p := range r.Ports {
		if p.Port == nil || (p.Port.IntValue() != 8000 && p.Port.IntValue() != 5432) {
			return false
		}
	}
	return len(r.Ports) > 0
}

// checkHA: the production shape of docs/architecture.md#beyond-one-machine.
func checkHA(ix *index, tg target) []error {
	var errs []error
	add := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if !tg.ha {
		if len(ix.databases) > 0 || len(ix.sets) > 0 {
			add("%s: a database or StatefulSet outside prod-ha", tg.dir)
		}
		return errs
	}
	// PostgreSQL: 3 instances on 3 nodes, with disruption budgets, UTF-8 C.UTF-8.
	db, ok := ix.databases["bidradar-db"]
	if !ok {
		add("CloudNativePG Cluster bidradar-db missing")
	} else {
		s := db.Spec
		if s.Instances != 3 {
			add("Cluster bidradar-db: %d instances, want 3", s.Instances)
		}
		if s.Affinity.EnablePodAntiAffinity == nil || !*s.Affinity.EnablePodAntiAffinity || s.Affinity.PodAntiAffinityType != "required" ||
			s.Affinity.TopologyKey != "kubernetes.io/hostname" {
			add("Cluster bidradar-db: instances not kept on distinct nodes (affinity %+v)", s.Affinity)
		}
		if s.EnablePDB == nil || !*s.EnablePDB {
			add("Cluster bidradar-db: enablePDB must be true")
		}
		if i := s.Bootstrap.InitDB; i.Encoding != "UTF8" || i.LocaleCType != "C.UTF-8" || i.LocaleCollate != "C.UTF-8" {
			add("Cluster bidradar-db: initdb %+v, want UTF8 with C.UTF-8 (Thai search)", i)
		}
		// CloudNativePG's images are tagged <major>.<minor> (a PostgreSQL release).
		if tag := s.ImageName[strings.LastIndex(s.ImageName, ":")+1:]; !looksPinned(tag) && !looksPinned(tag+".0") {
			add("Cluster bidradar-db: image %q not pinned", s.ImageName)
		}
	}
	// NATS: 3 nodes on 3 nodes, JetStream clustered, a budget of one.
	nats, ok := ix.sets["nats"]
	if !ok {
		add("StatefulSet nats missing")
	} else {
		if nats.Spec.Replicas == nil || *nats.Spec.Replicas != 3 {
			add("StatefulSet nats: replicas %v, want 3", nats.Spec.Replicas)
		}
		pod := nats.Spec.Template.Spec
		aa := pod.Affinity
		if aa == nil || aa.PodAntiAffinity == nil || len(aa.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) == 0 ||
			aa.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].TopologyKey != "kubernetes.io/hostname" {
			add("StatefulSet nats: no required anti-affinity on kubernetes.io/hostname")
		}
		sc := pod.SecurityContext
		if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.SeccompProfile == nil {
			add("StatefulSet nats: pod not restricted (runAsNonRoot, seccompProfile)")
		}
		for _, c := range pod.Containers {
			cs := c.SecurityContext
			if cs == nil || cs.AllowPrivilegeEscalation == nil || *cs.AllowPrivilegeEscalation || cs.Capabilities == nil ||
				!slices.Contains(cs.Capabilities.Drop, "ALL") || cs.ReadOnlyRootFilesystem == nil || !*cs.ReadOnlyRootFilesystem {
				add("StatefulSet nats: container %s not restricted", c.Name)
			}
			if c.Resources.Requests.Memory().IsZero() || c.ReadinessProbe == nil || c.LivenessProbe == nil {
				add("StatefulSet nats: container %s without memory request or probes", c.Name)
			}
		}
		if len(nats.Spec.VolumeClaimTemplates) == 0 {
			add("StatefulSet nats: JetStream without persistent volumes")
		}
		cm, ok := ix.configMap("nats-config")
		conf := cm.Data["nats.conf"]
		if !ok || !strings.Contains(conf, "jetstream") || !strings.Contains(conf, "cluster") {
			add("ConfigMap nats-config: no clustered JetStream configuration")
		}
		for i := range 3 {
			if !strings.Contains(conf, fmt.Sprintf("nats-%d.%s:6222", i, nats.Spec.ServiceName)) {
				add("ConfigMap nats-config: no route to nats-%d", i)
			}
		}
		if pdb, ok := ix.pdbs["nats"]; !ok || pdb.Spec.MaxUnavailable == nil || pdb.Spec.MaxUnavailable.IntValue() != 1 {
			add("PodDisruptionBudget nats: want maxUnavailable 1 (a quorum of 2 of 3 stays)")
		}
	}
	// The services: NATS on every node with 3 replicas, reads on -ro, spread over nodes.
	if cm, ok := ix.configMap("bidradar-config"); ok {
		if cm.Data["NATS_REPLICAS"] != "3" || strings.Count(cm.Data["NATS_URL"], "nats://") != 3 {
			add("ConfigMap bidradar-config: NATS_REPLICAS %q and NATS_URL %q, want 3 and the 3 nodes", cm.Data["NATS_REPLICAS"], cm.Data["NATS_URL"])
		}
	}
	for _, name := range sortedKeys(ix.deployments) {
		d := ix.deployments[name]
		env := envMap(d.Spec.Template.Spec.Containers[0].Env)
		if e := env["NATS_REPLICAS"]; e == nil || e.ValueFrom == nil || e.ValueFrom.ConfigMapKeyRef == nil {
			add("Deployment %q: NATS_REPLICAS not from bidradar-config (a new service with a schema: add it to the migrate patch of overlays/prod-ha)", name)
		}
		if d.Spec.Replicas == nil || *d.Spec.Replicas < 2 {
			add("Deployment %q: fewer than 2 replicas", name)
		}
		aa := d.Spec.Template.Spec.Affinity
		if aa == nil || aa.PodAntiAffinity == nil || len(aa.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) == 0 ||
			aa.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].PodAffinityTerm.LabelSelector.MatchLabels[labelName] != name {
			add("Deployment %q: no anti-affinity keeping its pods apart (a new service: add it to overlays/prod-ha/anti-affinity.yaml)", name)
		}
		if _, ok := ix.pdbs[name]; !ok {
			add("Deployment %q: no PodDisruptionBudget", name)
		}
	}
	if p, ok := ix.deployments["projects"]; ok {
		e := envMap(p.Spec.Template.Spec.Containers[0].Env)["DATABASE_READ_URL"]
		if e == nil || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || e.ValueFrom.SecretKeyRef.Name != "projects-db" {
			add("Deployment projects: DATABASE_READ_URL not from the projects-db secret")
		}
	}
	return errs
}

// setsSelectedBy are the StatefulSets whose pods sel selects.
func (ix *index) setsSelectedBy(sel map[string]string) []*appsv1.StatefulSet {
	var out []*appsv1.StatefulSet
	for _, name := range sortedKeys(ix.sets) {
		st := ix.sets[name]
		if len(sel) > 0 && labels.SelectorFromSet(sel).Matches(labels.Set(st.Spec.Template.Labels)) {
			out = append(out, st)
		}
	}
	return out
}

// checkSetService: a StatefulSet's Service targets its named ports.
func checkSetService(ix *index, s *corev1.Service) []error {
	var errs []error
	for _, st := range ix.setsSelectedBy(s.Spec.Selector) {
		ports := map[string]bool{}
		for _, c := range st.Spec.Template.Spec.Containers {
			for _, p := range c.Ports {
				ports[p.Name] = true
			}
		}
		for _, p := range s.Spec.Ports {
			if !ports[p.TargetPort.StrVal] {
				errs = append(errs, fmt.Errorf("Service %q: port %q: targetPort %q is not a named port of StatefulSet %q", s.Name, p.Name, p.TargetPort.String(), st.Name))
			}
		}
	}
	return errs
}
