package pgstore

import (
	"testing"

	"github.com/agentadapter/agentadapter/internal/storetest"
)

func TestConformance(t *testing.T) { storetest.TestConformance(t, kit) }

func TestTamper(t *testing.T) { storetest.TestTamper(t, kit) }

func TestRetention(t *testing.T) { storetest.TestRetention(t, kit) }

// TestReplicaProcesses: the waiters poll once a minute, so a prompt wake-up
// in another process is NOTIFY's.
func TestReplicaProcesses(t *testing.T) { storetest.TestReplicaProcesses(t, kit) }

func TestCrash(t *testing.T) { storetest.TestCrash(t, kit) }

func TestSchemaTooNew(t *testing.T) {
	storetest.TestSchemaTooNew(t, kit, "UPDATE agentadapter_schema SET version = 99", ErrSchemaTooNew)
}
