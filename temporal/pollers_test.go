package temporal

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	taskqueuepb "go.temporal.io/api/taskqueue/v1"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// A worker that stopped stays in the server's poller list for about five
// minutes: it counts as gone two minutes after its last poll, so "no
// worker polls" is said within that, not five minutes late.
func TestAPollerNotSeenForTwoMinutesIsGone(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	at := func(ago time.Duration) *taskqueuepb.PollerInfo {
		return &taskqueuepb.PollerInfo{LastAccessTime: timestamppb.New(now.Add(-ago))}
	}
	assert.Equal(t, 0, livePollers(nil, now))
	assert.Equal(t, 1, livePollers([]*taskqueuepb.PollerInfo{at(5 * time.Second)}, now), "polling now")
	assert.Equal(t, 1, livePollers([]*taskqueuepb.PollerInfo{at(70 * time.Second)}, now), "a long poll of a minute")
	assert.Equal(t, 0, livePollers([]*taskqueuepb.PollerInfo{at(3 * time.Minute)}, now), "stopped three minutes ago")
	assert.Equal(t, 1, livePollers([]*taskqueuepb.PollerInfo{at(4 * time.Minute), at(time.Second)}, now))
	assert.Equal(t, 1, livePollers([]*taskqueuepb.PollerInfo{{}}, now), "no time: counted")
}
