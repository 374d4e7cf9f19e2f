package kit

// Send runs the call to its end, handing each chunk of [TextStream.All]
// to send, for a framework whose streams are written through a pipe; send
// reports whether the reader has gone, which ends the call. Run it in the
// goroutine that writes the pipe, and close the pipe after.
func (s *TextStream) Send(send func(text string, err error) (closed bool)) {
	for text, err := range s.All() {
		if send(text, err) {
			return
		}
	}
}
