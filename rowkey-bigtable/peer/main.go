// Command peer reads and writes Bigtable rows with Google's official Go
// client (cloud.google.com/go/bigtable), against the emulator at
// BIGTABLE_EMULATOR_HOST: the peer rowkey-bigtable's tests check their keys
// against.
//
//	peer read PROJECT INSTANCE TABLE fwd|rev START STOP   one key per line, hex
//	peer write PROJECT INSTANCE TABLE FAMILY KEY...        KEY in hex; the cell d:v holds the key's index
//	peer bulk PROJECT INSTANCE TABLE FAMILY                 ApplyBulk of standard input's rows, timed
//	peer orderedcode                                       encodes standard input's lines, see below
//
// bulk reads lines "KEYHEX VALUEHEX", then writes them all with one
// ApplyBulk call (a cell FAMILY:v each) and prints the seconds that call
// took: the Go client's bulk write, for rowkey's bulk writer benchmark.
//
// orderedcode reads lines "int N", "int-desc N", "str HEX" or "str-desc HEX"
// and prints, one line each, the hex of Google's orderedcode package's
// encoding (github.com/google/orderedcode: Append of an int64 or a string,
// orderedcode.Decr for -desc): the peer rowkey_core::ordered_code's values
// are checked against.
//
// START and STOP are hex ("-" for none): a row range with START closed and
// STOP open, as rowkey's ScanRange.
package main

import (
	"bufio"
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/bigtable"
	"github.com/google/orderedcode"
)

func unhex(s string) []byte {
	if s == "-" {
		return nil
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		fail("not hex: %q", s)
	}
	return b
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "peer: "+format+"\n", args...)
	os.Exit(2)
}

func encodeOrdered() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		kind, arg, ok := strings.Cut(in.Text(), " ")
		if !ok {
			fail("orderedcode: bad line %q", in.Text())
		}
		var item any
		switch kind {
		case "int", "int-desc":
			n, err := strconv.ParseInt(arg, 10, 64)
			if err != nil {
				fail("orderedcode: %v", err)
			}
			item = n
			if kind == "int-desc" {
				item = orderedcode.Decr(n)
			}
		case "str", "str-desc":
			item = string(unhex(arg))
			if kind == "str-desc" {
				item = orderedcode.Decr(item.(string))
			}
		default:
			fail("orderedcode: unknown kind %q", kind)
		}
		b, err := orderedcode.Append(nil, item)
		if err != nil {
			fail("orderedcode: %v", err)
		}
		fmt.Fprintln(out, hex.EncodeToString(b))
	}
}

func main() {
	if len(os.Args) == 2 && os.Args[1] == "orderedcode" {
		encodeOrdered()
		return
	}
	if len(os.Args) < 5 {
		fail("usage: peer read|write PROJECT INSTANCE TABLE ...")
	}
	ctx := context.Background()
	client, err := bigtable.NewClient(ctx, os.Args[2], os.Args[3])
	if err != nil {
		fail("client: %v", err)
	}
	defer client.Close()
	table := client.Open(os.Args[4])
	switch os.Args[1] {
	case "read":
		if len(os.Args) != 8 {
			fail("usage: peer read PROJECT INSTANCE TABLE fwd|rev START STOP")
		}
		start, stop := unhex(os.Args[6]), unhex(os.Args[7])
		var rr bigtable.RowRange
		if stop == nil {
			rr = bigtable.InfiniteRange(string(start))
		} else {
			rr = bigtable.NewRange(string(start), string(stop))
		}
		var opts []bigtable.ReadOption
		if os.Args[5] == "rev" {
			opts = append(opts, bigtable.ReverseScan())
		}
		err := table.ReadRows(ctx, rr, func(r bigtable.Row) bool {
			fmt.Println(hex.EncodeToString([]byte(r.Key())))
			return true
		}, opts...)
		if err != nil {
			fail("read: %v", err)
		}
	case "write":
		if len(os.Args) < 6 {
			fail("usage: peer write PROJECT INSTANCE TABLE FAMILY KEY...")
		}
		family := os.Args[5]
		var keys []string
		var muts []*bigtable.Mutation
		for i, k := range os.Args[6:] {
			m := bigtable.NewMutation()
			m.Set(family, "v", bigtable.ServerTime, []byte(fmt.Sprint(i)))
			keys = append(keys, string(unhex(k)))
			muts = append(muts, m)
		}
		errs, err := table.ApplyBulk(ctx, keys, muts)
		if err != nil {
			fail("write: %v", err)
		}
		for i, e := range errs {
			if e != nil {
				fail("write row %d: %v", i, e)
			}
		}
	case "bulk":
		family := os.Args[5]
		in := bufio.NewScanner(os.Stdin)
		in.Buffer(make([]byte, 1<<20), 1<<20)
		var keys []string
		var muts []*bigtable.Mutation
		for in.Scan() {
			k, v, ok := strings.Cut(in.Text(), " ")
			if !ok {
				fail("bulk: bad line %q", in.Text())
			}
			m := bigtable.NewMutation()
			m.Set(family, "v", bigtable.ServerTime, unhex(v))
			keys = append(keys, string(unhex(k)))
			muts = append(muts, m)
		}
		start := time.Now()
		errs, err := table.ApplyBulk(ctx, keys, muts)
		took := time.Since(start)
		if err != nil {
			fail("bulk: %v", err)
		}
		for i, e := range errs {
			if e != nil {
				fail("bulk row %d: %v", i, e)
			}
		}
		fmt.Println(took.Seconds())
	default:
		fail("unknown command %q", os.Args[1])
	}
}
