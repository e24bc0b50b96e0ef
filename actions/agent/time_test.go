package agent

import "time"

func fixedNow() time.Time { return time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC) }
