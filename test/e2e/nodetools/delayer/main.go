// Command delayer adds delay between the e2e nodes' zones in user space (this
// kernel has no netem). The router namespace sends the traffic of each delayed
// zone pair into a TUN device; delayer reads each IPv4 packet, holds it for the
// pair's one-way delay and writes it back, and the kernel routes it on.
//
// The delays come from a file of lines "SRC DST MICROSECONDS", where SRC and
// DST are the first two octets of a zone's prefix (e.g. "10.200 10.201 2000"),
// read at start and again on SIGHUP. Each pair's queue is bounded: a packet
// that finds it full is dropped, as a congested link would.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

const (
	queueLength = 4096
	maxDelay    = 10 * time.Second
	tunSetIff   = 0x400454ca
	iffTun      = 0x0001
	iffNoPi     = 0x1000
)

type pair [4]byte

type packet struct {
	due  time.Time
	data []byte
}

type delays struct {
	mu     sync.RWMutex
	byPair map[pair]time.Duration
}

func (d *delays) get(key pair) time.Duration {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.byPair[key]
}

func (d *delays) load(file string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	next := map[pair]time.Duration{}
	scanner := bufio.NewScanner(f)
	for line := 1; scanner.Scan(); line++ {
		fields := strings.Fields(scanner.Text())
		if len(fields) == 0 {
			continue
		}
		if len(fields) != 3 {
			return fmt.Errorf("%s:%d: want SRC DST MICROSECONDS", file, line)
		}
		src, errSrc := prefix(fields[0])
		dst, errDst := prefix(fields[1])
		micros, errMicros := strconv.ParseInt(fields[2], 10, 64)
		delay := time.Duration(micros) * time.Microsecond
		if errSrc != nil || errDst != nil || errMicros != nil || delay < 0 || delay > maxDelay {
			return fmt.Errorf("%s:%d: bad line %q", file, line, scanner.Text())
		}
		next[pair{src[0], src[1], dst[0], dst[1]}] = delay
	}
	if err := scanner.Err(); err != nil {
		return err
	}
	d.mu.Lock()
	d.byPair = next
	d.mu.Unlock()
	return nil
}

func prefix(text string) ([2]byte, error) {
	parts := strings.Split(text, ".")
	if len(parts) != 2 {
		return [2]byte{}, fmt.Errorf("not two octets: %q", text)
	}
	var out [2]byte
	for i, part := range parts {
		octet, err := strconv.ParseUint(part, 10, 8)
		if err != nil {
			return out, err
		}
		out[i] = byte(octet)
	}
	return out, nil
}

func openTun(name string) (int, error) {
	fd, err := syscall.Open("/dev/net/tun", syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	var request struct {
		name  [16]byte
		flags uint16
		_     [22]byte
	}
	copy(request.name[:], name)
	request.flags = iffTun | iffNoPi
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), tunSetIff, uintptr(unsafe.Pointer(&request))); errno != 0 {
		syscall.Close(fd)
		return -1, fmt.Errorf("TUNSETIFF %s: %w", name, errno)
	}
	return fd, nil
}

func main() {
	tun := flag.String("tun", "tgdelay", "the TUN device to attach to")
	config := flag.String("config", "", "the delays file")
	flag.Parse()
	table := &delays{byPair: map[pair]time.Duration{}}
	if err := table.load(*config); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fd, err := openTun(*tun)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	hangups := make(chan os.Signal, 1)
	signal.Notify(hangups, syscall.SIGHUP)
	go func() {
		for range hangups {
			if err := table.load(*config); err != nil {
				fmt.Fprintln(os.Stderr, "keeping the old delays:", err)
			}
		}
	}()
	queues := map[pair]chan packet{}
	buffer := make([]byte, 65536)
	for {
		n, err := syscall.Read(fd, buffer)
		if err != nil {
			if err == syscall.EINTR {
				continue
			}
			fmt.Fprintln(os.Stderr, "read:", err)
			os.Exit(1)
		}
		if n < 20 || buffer[0]>>4 != 4 {
			continue
		}
		key := pair{buffer[12], buffer[13], buffer[16], buffer[17]}
		queue, ok := queues[key]
		if !ok {
			queue = make(chan packet, queueLength)
			queues[key] = queue
			go release(fd, queue)
		}
		data := append([]byte(nil), buffer[:n]...)
		select {
		case queue <- packet{due: time.Now().Add(table.get(key)), data: data}:
		default:
		}
	}
}

// release writes each packet back once it is due; one goroutine per pair keeps each pair's order.
func release(fd int, queue <-chan packet) {
	for p := range queue {
		if wait := time.Until(p.due); wait > 0 {
			time.Sleep(wait)
		}
		_, _ = syscall.Write(fd, p.data)
	}
}
