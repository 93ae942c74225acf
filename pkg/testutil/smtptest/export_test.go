package smtptest

// Waiting is how many WaitFor calls are blocked for a message.
func (s *Server) Waiting() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.waiting
}
