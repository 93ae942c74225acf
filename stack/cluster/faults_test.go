package cluster_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"bidradar/pkg/testutil/smtptest"
	"bidradar/stack/cluster"
)

// TestMain lets the test binary be the cluster's service processes too.
func TestMain(m *testing.M) {
	cluster.ChildMain()
	os.Exit(m.Run())
}

func knob(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// client is one user (or the operator) of the gateway's REST API.
type client struct {
	t     *testing.T
	base  string
	http  *http.Client
	auth  string
	jar   []*http.Cookie // the br_lsn cookie, as a browser keeps it
	mu    sync.Mutex
	stats *stats
}

type stats struct {
	mu                    sync.Mutex
	calls, retried, fives int
	failures              []string
}

func (s *stats) add(f func(*stats)) { s.mu.Lock(); f(s); s.mu.Unlock() }

type answer struct {
	status int
	body   map[string]any
	raw    string
}

func (c *client) once(method, path string, body any) (answer, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+"/app/backend/api/v1"+path, rd)
	if err != nil {
		return answer{}, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.auth != "" {
		req.Header.Set("Authorization", "Bearer "+c.auth)
	}
	c.mu.Lock()
	for _, ck := range c.jar {
		req.AddCookie(ck)
	}
	c.mu.Unlock()
	resp, err := c.http.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if cs := resp.Cookies(); len(cs) > 0 {
		c.mu.Lock()
		for _, ck := range cs {
			if ck.Name == "br_lsn" {
				c.jar = []*http.Cookie{{Name: ck.Name, Value: ck.Value}}
			}
		}
		c.mu.Unlock()
	}
	a := answer{status: resp.StatusCode, raw: string(raw)}
	_ = json.Unmarshal(raw, &a.body)
	return a, nil
}

// call sends a request; a transport error or a 5xx (a request in flight at
// a kill) is retried once, and must then succeed. ambiguous reports that a
// first attempt failed: its write may or may not have happened.
func (c *client) call(method, path string, body any) (a answer, ambiguous bool) {
	a, err := c.once(method, path, body)
	c.stats.add(func(s *stats) { s.calls++ })
	if err == nil && a.status < 500 {
		return a, false
	}
	c.stats.add(func(s *stats) { s.fives++ })
	time.Sleep(500 * time.Millisecond)
	a2, err2 := c.once(method, path, body)
	c.stats.add(func(s *stats) { s.retried++ })
	if err2 != nil || a2.status >= 500 {
		c.stats.add(func(s *stats) {
			s.failures = append(s.failures, fmt.Sprintf("%s %s: %d %v, then %d %v %s", method, path, a.status, err, a2.status, err2, a2.raw))
		})
	}
	return a2, true
}

func (c *client) must(method, path string, body any, want int) answer {
	c.t.Helper()
	a, _ := c.call(method, path, body)
	if a.status != want {
		c.t.Fatalf("%s %s: %d %s, want %d", method, path, a.status, a.raw, want)
	}
	return a
}

func register(t *testing.T, base string, mail *smtptest.Server, st *stats, name, email string) *client {
	t.Helper()
	c := &client{t: t, base: base, http: &http.Client{Timeout: 30 * time.Second}, stats: st}
	c.must("POST", "/register", map[string]string{"username": name, "email": email, "password": "long enough pass", "name": "ทดสอบ " + name}, 200)
	var code string
	deadline := time.Now().Add(30 * time.Second)
	for code == "" {
		m, err := mail.WaitFor(email, time.Until(deadline))
		if err != nil {
			t.Fatalf("no code for %s: %v", email, err)
		}
		if strings.HasPrefix(m.Subject, "รหัส") {
			code = smtptest.ExtractCode(m.Text)
		}
	}
	v := c.must("POST", "/verify-otp/?email="+email+"&otp="+code, nil, 200)
	c.auth, _ = v.body["access_token"].(string)
	return c
}

func ocds(id, title string) string {
	return `{"uri":"https://example.org/p.json","version":"1.1","publishedDate":"2026-11-20T10:00:00+07:00","publisher":{"name":"x"},"releases":[` +
		fmt.Sprintf(`{"ocid":"ocds-03ad3f-%[1]s","id":"%[1]s-0","date":"%[3]s","tag":["tender"],
		"initiationType":"tender","parties":[{"id":"TH-1","name":"กรมทางหลวงชนบท","roles":["buyer","procuringEntity"],"address":{"region":"กรุงเทพมหานคร"}}],
		"buyer":{"id":"TH-1","name":"กรมทางหลวงชนบท"},"planning":{"budget":{"amount":{"amount":4500000,"currency":"THB"}}},
		"tender":{"id":"%[1]s","title":"%[2]s","status":"active","procurementMethod":"open","procurementMethodDetails":"ประกวดราคาอิเล็กทรอนิกส์ (e-bidding)","mainProcurementCategory":"works"}}`,
			id, title, time.Now().Format(time.RFC3339)) + `]}`
}

// TestFaults runs the product as `make run-cluster` does and, while users
// mark projects, save searches, send themselves test notifications and
// receive alerts, SIGKILLs at random moments a NATS node, one process of
// a service or the PostgreSQL replica. No write may be lost or doubled,
// every notification is in the bell once with the unread count equal to
// its rows, no request fails except one in flight at a kill, which
// succeeds on one retry, and every alert arrives within 60 s
// (docs/architecture.md#beyond-one-machine). FAULTS_USERS, FAULTS_SECONDS
// and FAULTS_KILLS size it (scripts/faults.sh runs it bigger).
func TestFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a whole cluster")
	}
	users, seconds, kills := knob("FAULTS_USERS", 3), knob("FAULTS_SECONDS", 40), knob("FAULTS_KILLS", 6)
	mail := smtptest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	c, err := cluster.Start(ctx, cluster.Options{Dir: t.TempDir(), Env: map[string]string{
		"SMTP_HOST": mail.Host(), "SMTP_PORT": strconv.Itoa(mail.Port()), "HTTP_ADDR": "127.0.0.1:0",
		"DEMO_DATA": "40", "LOG_LEVEL": "warn", "ADMIN_EMAILS": "@ops.bidradar.test", "WEB_DIR": t.TempDir(),
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	t.Logf("cluster ready in %s", time.Since(start).Round(time.Millisecond))
	checkStreamReplicas(t, c.NATSURL)

	st := &stats{}
	admin := register(t, c.URL, mail, st, "ops", "ops@ops.bidradar.test")
	var people []*client
	for i := range users {
		u := register(t, c.URL, mail, st, fmt.Sprintf("user%d", i), fmt.Sprintf("user%d@example.com", i))
		u.must("POST", "/to_do_search", map[string]any{"keyWord_Incl_And": []string{"สะพานทนทาน"}, "search_type": "normal", "name": "ทนทาน"}, 200)
		// A write to a service reading on the replica carries its WAL
		// position to the user's next reads (pkg/pgdb Reads).
		if len(u.jar) == 0 {
			t.Errorf("user%d: saving a search set no br_lsn cookie", i)
		}
		people = append(people, u)
	}
	list := admin.must("GET", "/gen-infor?per_page=40", nil, 200)
	var projects []string
	for _, r := range list.body["data"].([]any) {
		projects = append(projects, r.(map[string]any)["project_id"].(string))
	}
	if len(projects) < 10 {
		t.Fatalf("demo projects: %s", list.raw)
	}
	readYourWrites(t, c, admin, people[0])
	base := make([]float64, len(people))
	for i, u := range people {
		base[i] = u.must("GET", "/bell/notifications", nil, 200).body["total"].(float64)
	}

	deadline := time.Now().Add(time.Duration(seconds) * time.Second)
	var wg sync.WaitGroup
	// The killer: kills spread over the run, each at a random moment of its slot.
	var victims []string
	for _, n := range c.Names() {
		if n != "pg-primary" && n != "gateway" {
			victims = append(victims, n)
		}
	}
	var killed []string
	wg.Go(func() {
		slot := time.Duration(seconds) * time.Second / time.Duration(kills+1)
		// A NATS node, a service process and the PostgreSQL replica first,
		// in a random order, then anything.
		first := []string{fmt.Sprintf("nats-%d", 1+rand.N(cluster.NATSNodes)), "pg-replica"}
		var processes []string
		for _, v := range victims {
			if !strings.HasPrefix(v, "nats-") && !strings.HasPrefix(v, "pg-") {
				processes = append(processes, v)
			}
		}
		first = append(first, processes[rand.N(len(processes))])
		rand.Shuffle(len(first), func(i, j int) { first[i], first[j] = first[j], first[i] })
		for k := range kills {
			time.Sleep(slot/2 + rand.N(slot))
			if time.Now().After(deadline) {
				return
			}
			v := victims[rand.N(len(victims))]
			if k < len(first) {
				v = first[k]
			}
			if pid := c.Pid(v); pid > 0 {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				killed = append(killed, v)
			}
		}
	})
	// The alerts: projects matching everyone's saved search, ingested during the run.
	type alert struct {
		id string
		at time.Time
	}
	var alerts []alert
	var alertsMu sync.Mutex
	wg.Go(func() {
		for i := range 3 {
			time.Sleep(time.Duration(seconds) * time.Second / 4)
			id := fmt.Sprintf("6911%07d", 1000+i)
			r, _ := admin.call("POST", "/admin/ingest", map[string]string{"source": "ocds",
				"content": base64.StdEncoding.EncodeToString([]byte(ocds(id, "จ้างก่อสร้างสะพานทนทาน แห่งที่ "+strconv.Itoa(i+1))))})
			if r.status != 200 {
				t.Errorf("ingest %s: %d %s", id, r.status, r.raw)
				continue
			}
			alertsMu.Lock()
			alerts = append(alerts, alert{id, time.Now()})
			alertsMu.Unlock()
		}
	})
	// The users.
	marked := make([]map[string]bool, len(people))
	tests := make([]int, len(people))
	unsure := make([]int, len(people))
	for i, u := range people {
		marked[i] = map[string]bool{}
		wg.Go(func() {
			for n := 0; time.Now().Before(deadline); n++ {
				switch n % 4 {
				case 0, 2:
					p := projects[rand.N(len(projects))]
					if r, _ := u.call("PATCH", "/userInterests/"+p, map[string]any{"is_userLike": true}); r.status == 200 {
						marked[i][p] = true
						// Read-your-writes: the next read shows the mark.
						if look, _ := u.call("GET", "/userInterests/"+p, nil); look.status != 200 || look.body["data"].(map[string]any)["is_userLike"] != true {
							t.Errorf("user%d: mark of %s not read back: %s", i, p, look.raw)
						}
					}
				case 1:
					switch r, amb := u.call("POST", "/bell/notifications/test", nil); {
					case r.status == 200 && amb:
						unsure[i]++ // the first attempt may have written one too
						tests[i]++
					case r.status == 200:
						tests[i]++
					case r.status != 429:
						t.Errorf("user%d: test notification: %d %s", i, r.status, r.raw)
					}
				case 3:
					u.call("GET", "/gen-infor?keyword="+"ถนน", nil)
				}
				time.Sleep(600 * time.Millisecond)
			}
		})
	}
	wg.Wait()
	t.Logf("killed %v", killed)

	// Every alert in every bell, once, within 60 s of its ingestion.
	for i, u := range people {
		for _, a := range alerts {
			for {
				r, _ := u.call("GET", "/bell/notifications?category=search_match&per_page=100", nil)
				n := 0
				for _, x := range r.body["notifications"].([]any) {
					if x.(map[string]any)["project_id"] == a.id {
						n++
					}
				}
				if n > 1 {
					t.Errorf("user%d: %d alerts of %s", i, n, a.id)
				}
				if n >= 1 {
					break
				}
				if time.Since(a.at) > 60*time.Second {
					t.Errorf("user%d: no alert of %s within 60 s", i, a.id)
					break
				}
				time.Sleep(time.Second)
			}
		}
	}
	for i, u := range people {
		// Marks: exactly the ones made.
		act, _ := u.call("GET", "/userInterests/active?per_page=100", nil)
		got := map[string]bool{}
		for _, x := range act.body["data"].([]any) {
			got[x.(map[string]any)["id_project"].(string)] = true
		}
		if fmt.Sprint(got) != fmt.Sprint(marked[i]) {
			t.Errorf("user%d: marks %v, made %v", i, got, marked[i])
		}
		// Notifications: the tests sent and the alerts, once each, all unread.
		bell, _ := u.call("GET", "/bell/notifications", nil)
		total, unread := bell.body["total"].(float64), bell.body["unread_count"].(float64)
		n := int(total-base[i]) - len(alerts)
		if n < tests[i] || n > tests[i]+unsure[i] || unread != total {
			t.Errorf("user%d: %v notifications (%d tests sent, %d unsure, %d alerts, %v before), %v unread", i, total, tests[i], unsure[i], len(alerts), base[i], unread)
		}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	t.Logf("%d calls, %d answered 5xx or broke at a kill and were retried once; %d kills: %v", st.calls, st.fives, len(killed), killed)
	for _, f := range st.failures {
		t.Errorf("failed after one retry: %s", f)
	}
	for _, n := range c.Names() {
		if c.Pid(n) == 0 {
			t.Errorf("%s not running after the run", n)
		}
	}
}

// checkStreamReplicas: on three nodes every stream is kept by three.
func checkStreamReplicas(t *testing.T, url string) {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for info := range js.ListStreams(context.Background()).Info() {
		n++
		if info.Config.Replicas != cluster.NATSNodes {
			t.Errorf("stream %s on %d servers, want %d", info.Config.Name, info.Config.Replicas, cluster.NATSNodes)
		}
	}
	if n == 0 {
		t.Error("no streams")
	}
}

// readYourWrites: with the replica's replay paused, each project the
// operator imports is found by the operator's very next read (their
// br_lsn cookie sends it to the primary, whichever projects process
// serves it), 20 times over.
func readYourWrites(t *testing.T, c *cluster.Cluster, admin, other *client) {
	t.Helper()
	replay := func(sql string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, c.ReplicaURL)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	replay("SELECT pg_wal_replay_pause()")
	defer replay("SELECT pg_wal_replay_resume()")
	var ids []string
	for k := range 20 {
		id := fmt.Sprintf("6922%07d", k)
		ids = append(ids, id)
		admin.must("POST", "/admin/ingest", map[string]string{"source": "ocds",
			"content": base64.StdEncoding.EncodeToString([]byte(ocds(id, "จ้างซ่อมแซมถนนลูกรัง หมู่ที่ "+strconv.Itoa(k+1))))}, 200)
		if r, _ := admin.call("GET", "/projects/"+id, nil); r.status != 200 {
			t.Errorf("the operator's own import %s not read back: %d %s", id, r.status, r.raw)
		}
	}
	stale := 0
	for _, id := range ids {
		if r, _ := other.call("GET", "/projects/"+id, nil); r.status == 404 {
			stale++
		}
	}
	t.Logf("read-your-writes: 20 of 20 imports read back by their writer with the replica held back; another user found %d of them not yet there", stale)
}
