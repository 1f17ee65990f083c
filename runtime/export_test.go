package runtime

// TicketEntry is the entry behind t, for tests that check it was reused.
func TicketEntry(t Ticket) *SentinelEntry { return t.e }
