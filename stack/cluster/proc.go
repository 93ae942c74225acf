package cluster

import (
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// proc is one supervised process: started again whenever it exits until
// stop, its pid file rewritten at each start.
type proc struct {
	name             string
	build            func() (*exec.Cmd, error)
	stopSig          syscall.Signal
	pidFile, logFile string
	log              *slog.Logger

	mu       sync.Mutex
	cmd      *exec.Cmd
	stopping bool
	restarts int
	started  chan struct{} // closed at the first start (or give-up)
	done     chan struct{} // closed when supervise returns
}

func (p *proc) supervise() {
	defer close(p.done)
	first := true
	delay := RestartDelay
	for {
		p.mu.Lock()
		if p.stopping {
			p.mu.Unlock()
			if first {
				close(p.started)
			}
			return
		}
		cmd, err := p.build()
		var logf *os.File
		if err == nil {
			logf, err = os.OpenFile(p.logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		}
		if err == nil {
			cmd.Stdout, cmd.Stderr = logf, logf
			if cmd.SysProcAttr == nil {
				cmd.SysProcAttr = &syscall.SysProcAttr{}
			}
			// Its own process group: a terminal's Ctrl-C reaches the
			// supervisor only, which stops everything in order.
			cmd.SysProcAttr.Setpgid = true
			err = cmd.Start()
		}
		if err != nil {
			p.mu.Unlock()
			if logf != nil {
				logf.Close()
			}
			p.log.Error("cannot start", "process", p.name, "err", err)
			time.Sleep(delay)
			continue
		}
		p.cmd = cmd
		_ = os.WriteFile(p.pidFile, []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644)
		p.mu.Unlock()
		if first {
			close(p.started)
			first = false
		}
		began := time.Now()
		err = cmd.Wait()
		logf.Close()
		p.mu.Lock()
		p.cmd = nil
		stopping := p.stopping
		if !stopping {
			p.restarts++
		}
		p.mu.Unlock()
		if stopping {
			_ = os.Remove(p.pidFile)
			return
		}
		// Dying at once again and again: back off up to 2 s (still
		// within the 5 s a killed process has to come back).
		if time.Since(began) < 5*time.Second {
			delay = min(2*delay, 2*time.Second)
		} else {
			delay = RestartDelay
		}
		p.log.Warn("process exited: restarting", "process", p.name, "err", err, "after", delay)
		time.Sleep(delay)
	}
}

func (p *proc) pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil || p.cmd.Process == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// stop signals the process to stop (stopSig), kills it after 20 s and
// waits for the supervisor to end.
func (p *proc) stop() {
	p.mu.Lock()
	p.stopping = true
	cmd := p.cmd
	p.mu.Unlock()
	if cmd != nil && cmd.Process != nil {
		_ = cmd.Process.Signal(p.stopSig)
	}
	select {
	case <-p.done:
		return
	case <-time.After(20 * time.Second):
	}
	p.mu.Lock()
	if p.cmd != nil && p.cmd.Process != nil {
		_ = p.cmd.Process.Kill()
	}
	p.mu.Unlock()
	<-p.done
}

func (p *proc) logTail() string {
	if p == nil {
		return ""
	}
	return "\n" + lastLines(p.logFile, 20)
}
