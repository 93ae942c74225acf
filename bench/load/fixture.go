package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Fixture is what the requests are made of: signed-in users with marks,
// project ids to open and mark, and the kinds the server cannot serve.
type Fixture struct {
	Users    []User
	Projects []string          // ids seen in search results
	Skip     map[string]string // kind → why it is left out
	Notes    []string
	search   []url.Values
	listing  []url.Values
	market   []url.Values
}

// User is a signed-in bench user.
type User struct {
	Name, Token string
	Marked      []string
}

// SetupConfig says how to make the fixture.
type SetupConfig struct {
	BaseURL  string
	Users    int    // signed-in users
	Prefix   string // their user names: <prefix>1 …
	Password string
	MailDir  string // where the development mail sender writes codes (MAIL_DIR), for new users
	Marks    int    // projects each user marks before the run
	Market   bool   // probe GET /market/benchmarks and include it
}

var errHTTP = errors.New("http")

// call sends one REST request and decodes the JSON answer.
func call(ctx context.Context, base, method, path, token string, body any, out any) (int, error) {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+"/app/backend/api/v1"+path, rd)
	if err != nil {
		return 0, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		return resp.StatusCode, fmt.Errorf("%w: %s %s: %d %s", errHTTP, method, path, resp.StatusCode, firstLine(string(raw)))
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return resp.StatusCode, fmt.Errorf("%s %s: %w", method, path, err)
		}
	}
	return resp.StatusCode, nil
}

// Setup signs the users in (registering the missing ones, with the code
// the development mail sender wrote to MailDir), collects project ids from
// the search mix, marks Marks projects for each user, and probes the
// optional routes.
func Setup(ctx context.Context, sc SetupConfig) (*Fixture, error) {
	fx := &Fixture{Skip: map[string]string{}, search: searchMix(), listing: listingMix(), market: marketMix()}
	// Project ids: the first 100 matches of each query of the mix.
	seen := map[string]bool{}
	for _, q := range fx.search {
		q2 := url.Values{}
		for k, v := range q {
			q2[k] = v
		}
		q2.Set("per_page", "100")
		var page struct {
			Data []struct {
				ProjectID string `json:"project_id"`
			} `json:"data"`
		}
		if _, err := call(ctx, sc.BaseURL, "GET", "/gen-infor?"+q2.Encode(), "", nil, &page); err != nil {
			return nil, err
		}
		for _, d := range page.Data {
			if d.ProjectID != "" && !seen[d.ProjectID] {
				seen[d.ProjectID] = true
				fx.Projects = append(fx.Projects, d.ProjectID)
			}
		}
	}
	if len(fx.Projects) == 0 {
		return nil, errors.New("the search mix found no project: load projects first (bench/search -load-only)")
	}
	// Users, in parallel (each sign-in hashes a password).
	fx.Users = make([]User, sc.Users)
	errs := make([]error, sc.Users)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i := range fx.Users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			name := fmt.Sprintf("%s%d", sc.Prefix, i+1)
			tok, err := signIn(ctx, sc, name)
			if err != nil {
				errs[i] = fmt.Errorf("user %s: %w", name, err)
				return
			}
			if err := buyMarketPlan(ctx, sc, tok); err != nil {
				errs[i] = fmt.Errorf("user %s: %w", name, err)
				return
			}
			u := User{Name: name, Token: tok}
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			for j := 0; j < sc.Marks && j < len(fx.Projects); j++ {
				id := fx.Projects[rng.IntN(len(fx.Projects))]
				// every 2nd liked, every 3rd followed with fill20, every 5th a bid
				body := map[string]any{"is_userLike": true}
				switch {
				case j%5 == 0:
					body = map[string]any{"reductionPercent": float64(5 + j%10)}
				case j%3 == 0:
					body = map[string]any{"is_fill20": true}
				}
				if _, err := call(ctx, sc.BaseURL, "PATCH", "/userInterests/"+id, tok, body, nil); err != nil {
					errs[i] = fmt.Errorf("user %s: mark %s: %w", name, id, err)
					return
				}
				u.Marked = append(u.Marked, id)
			}
			fx.Users[i] = u
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if len(fx.Users) == 0 {
		for _, k := range []string{KindListing, KindDetails, KindMarket, KindMark} {
			fx.Skip[k] = "no signed-in users (-users 0)"
		}
	}
	if !sc.Market {
		fx.Skip[KindMarket] = "left out (-market=false)"
	} else if len(fx.Users) > 0 {
		st, err := call(ctx, sc.BaseURL, "GET", "/market/benchmarks?"+fx.market[0].Encode(), fx.Users[0].Token, nil, nil)
		switch {
		case st == http.StatusNotFound:
			fx.Skip[KindMarket] = "GET /market/benchmarks answers 404: no market service on this build; left out"
		case st == http.StatusForbidden:
			fx.Skip[KindMarket] = "GET /market/benchmarks answers 403: the users' plan has no market benchmarks; left out"
		case err != nil:
			fx.Notes = append(fx.Notes, fmt.Sprintf("market: the probe answered %d (%v); measured as it answers", st, err))
		}
	}
	for _, k := range Kinds {
		if why := fx.Skip[k]; why != "" {
			fx.Notes = append(fx.Notes, k+": "+why)
		}
	}
	return fx, nil
}

// buyMarketPlan gives a free user the starter plan (the first with market
// benchmarks) through the local provider's checkout, as `make run` serves
// it. A stack on a real provider has no local checkout: its users must
// already hold a plan, or the market kind is left out (see Setup).
func buyMarketPlan(ctx context.Context, sc SetupConfig, tok string) error {
	var sub struct {
		Tier string `json:"tier"`
	}
	if _, err := call(ctx, sc.BaseURL, "GET", "/users/me/subscription", tok, nil, &sub); err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	if sub.Tier != "" && sub.Tier != "free" {
		return nil
	}
	var co struct {
		SessionID string `json:"session_id"`
	}
	if _, err := call(ctx, sc.BaseURL, "POST", "/payment/checkout", tok, map[string]string{"tier": "starter", "period": "monthly", "method": "card"}, &co); err != nil || co.SessionID == "" {
		return nil // a real provider: nothing to buy here
	}
	if _, err := call(ctx, sc.BaseURL, "POST", "/payment/local/"+co.SessionID+"/complete", tok, map[string]string{"outcome": "paid"}, nil); err != nil {
		return fmt.Errorf("pay the starter plan: %w", err)
	}
	return nil
}

// signIn logs name in, registering it first when the login is refused.
func signIn(ctx context.Context, sc SetupConfig, name string) (string, error) {
	var out struct {
		AccessToken string `json:"access_token"`
	}
	if _, err := call(ctx, sc.BaseURL, "POST", "/login", "", map[string]string{"username": name, "password": sc.Password}, &out); err == nil && out.AccessToken != "" {
		return out.AccessToken, nil
	}
	if sc.MailDir == "" {
		return "", errors.New("cannot sign in and no -mail-dir to register with")
	}
	email := name + "@bench.example.com"
	if _, err := call(ctx, sc.BaseURL, "POST", "/register", "", map[string]string{"username": name, "email": email, "password": sc.Password, "name": "โหลด " + name}, nil); err != nil {
		return "", err
	}
	code, err := waitCode(ctx, sc.MailDir, email)
	if err != nil {
		return "", err
	}
	if _, err := call(ctx, sc.BaseURL, "POST", "/verify-otp?email="+url.QueryEscape(email)+"&otp="+code, "", nil, &out); err != nil {
		return "", err
	}
	if out.AccessToken == "" {
		if _, err := call(ctx, sc.BaseURL, "POST", "/login", "", map[string]string{"username": name, "password": sc.Password}, &out); err != nil {
			return "", err
		}
	}
	return out.AccessToken, nil
}

var sixDigits = regexp.MustCompile(`\b\d{6}\b`)

// waitCode reads the code mailed to email from the development sender's
// .eml files.
func waitCode(ctx context.Context, dir, email string) (string, error) {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		files, _ := filepath.Glob(filepath.Join(dir, "*.eml"))
		for _, f := range files {
			raw, _ := os.ReadFile(f)
			head, body, _ := strings.Cut(string(raw), "\r\n\r\n")
			if strings.Contains(head, email) {
				if m := sixDigits.FindString(body); m != "" {
					return m, nil
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return "", fmt.Errorf("no code mailed to %s in %s", email, dir)
}

// next builds the i-th request of kind.
func (fx *Fixture) next(kind string, rng *rand.Rand, i int) request {
	user := func() *User { return &fx.Users[rng.IntN(len(fx.Users))] }
	switch kind {
	case KindSearch:
		return request{method: "GET", path: "/gen-infor?" + fx.search[i%len(fx.search)].Encode()}
	case KindListing:
		return request{method: "GET", path: "/gen-infor?" + fx.listing[i%len(fx.listing)].Encode(), token: user().Token}
	case KindDetails:
		return request{method: "GET", path: "/projects/" + fx.Projects[rng.IntN(len(fx.Projects))], token: user().Token}
	case KindMarket:
		return request{method: "GET", path: "/market/benchmarks?" + fx.market[i%len(fx.market)].Encode(), token: user().Token}
	default: // KindMark: a like set or cleared, or a follow with fill20
		u := user()
		id := fx.Projects[rng.IntN(len(fx.Projects))]
		body := fmt.Sprintf(`{"is_userLike":%t}`, i%2 == 0)
		if i%4 == 1 {
			body = `{"is_fill20":true}`
		}
		return request{method: "PATCH", path: "/userInterests/" + id, body: body, token: u.Token}
	}
}
