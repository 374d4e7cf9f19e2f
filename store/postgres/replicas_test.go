package pgstore

const childEnv = "PGSTORE_TEST_CHILD"

func childMain() int { return 2 }
