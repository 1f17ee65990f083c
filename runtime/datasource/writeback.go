package datasource

import (
	"errors"
	"fmt"
)

// ErrWouldNotLoad is the cause of a write-back refused because what it
// would write could not be loaded again: over the size cap the watching
// sources read (ErrTooLarge too), or refused by decoding and validation.
// Nothing is written.
var ErrWouldNotLoad = errors.New("would not load again")

// EncodeChecked encodes the rules of kind in force as Java-compatible JSON
// for a write-back to name (a file, a key), and decodes and validates the
// result before handing it out: what a write-back produces must load again,
// or the watching sources (this one, the fleet's others) would refuse it.
// It must also fit DefaultMaxSize; see encodeCheckedMax.
func EncodeChecked(name string, kind Kind) ([]byte, error) {
	return encodeCheckedMax(name, kind, 0)
}

// encodeCheckedMax is EncodeChecked for sources whose size cap is maxSize
// (DefaultMaxSize when maxSize <= 0). Errors wrap ErrWouldNotLoad.
func encodeCheckedMax(name string, kind Kind, maxSize int64) ([]byte, error) {
	if maxSize <= 0 {
		maxSize = DefaultMaxSize
	}
	data, err := kind.Encode()
	if err != nil {
		return nil, fmt.Errorf("%s: encoding %s rules: %w", name, kind.Name(), err)
	}
	if int64(len(data)) > maxSize {
		return nil, fmt.Errorf("%s: %w: the %s rules encode to %d bytes, over the %d-byte cap the sources read (%w); not written",
			name, ErrWouldNotLoad, kind.Name(), len(data), maxSize, ErrTooLarge)
	}
	set, err := kind.Decode(name, data)
	if err == nil {
		err = set.Validate()
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w: the %s rules in force do not encode to a document that loads; not written: %w", name, ErrWouldNotLoad, kind.Name(), err)
	}
	return data, nil
}

// saveKind is the kind a source of kind source writes back when asked to
// save asked: the source's own. A combined source saves every kind in
// force whichever kind was updated (a lone array would not load as its
// document); a source of one kind saves only that kind.
func saveKind(source, asked Kind) (Kind, error) {
	if asked == nil || asked == source || asked.Name() == source.Name() {
		return source, nil
	}
	if _, ok := source.(*combinedKind); ok {
		return source, nil
	}
	return nil, fmt.Errorf("holds %s rules; cannot save %s rules", source.Name(), asked.Name())
}
