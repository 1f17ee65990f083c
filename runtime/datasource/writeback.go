package datasource

import "fmt"

// EncodeChecked encodes the rules of kind in force as Java-compatible JSON
// for a write-back to name (a file, a key), and decodes and validates the
// result before handing it out: what a write-back produces must load again,
// or the watching sources (this one, the fleet's others) would refuse it.
func EncodeChecked(name string, kind Kind) ([]byte, error) {
	data, err := kind.Encode()
	if err != nil {
		return nil, fmt.Errorf("%s: encoding %s rules: %w", name, kind.Name(), err)
	}
	set, err := kind.Decode(name, data)
	if err == nil {
		err = set.Validate()
	}
	if err != nil {
		return nil, fmt.Errorf("%s: the %s rules in force do not encode to a document that loads; not written: %w", name, kind.Name(), err)
	}
	return data, nil
}

// SaveKind is the kind a source of kind source writes back when asked to
// save asked: the source's own. A combined source saves every kind in
// force whichever kind was updated (a lone array would not load as its
// document); a source of one kind saves only that kind.
func SaveKind(source, asked Kind) (Kind, error) {
	if asked == nil || asked == source || asked.Name() == source.Name() {
		return source, nil
	}
	if _, ok := source.(*combinedKind); ok {
		return source, nil
	}
	return nil, fmt.Errorf("holds %s rules; cannot save %s rules", source.Name(), asked.Name())
}
