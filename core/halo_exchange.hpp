#pragma once
#include <memory>
#include <utility>
#include <vector>

#include "core/decomposition.hpp"
#include "core/field.hpp"
#include "core/memory.hpp"
#include "core/phase_timer.hpp"
#include "core/transport.hpp"

namespace staghorn {

// Fills the halos of all fields of a model at once from their owners: 6 sides, 12 edges and
// 8 corners (edges and corners skippable), packed into contiguous buffers by kernels on the
// boundary lane, segment by segment with every field's slab of a segment side by side, so that
// one message per neighbour and segment (tagged with its direction) carries all fields. The
// transport is the run's Network's (Exec::network(); MPI on host memory without one). A periodic
// axis held by one rank exchanges with itself through the same segments, unless the caller fills
// that axis's halo itself (`filled`: a kernel that writes each boundary value's periodic images):
// then the segments that stay on the rank along filled axes are left out, and only the others
// (those that also cross an axis split over ranks) travel.
//
// The segments leave in waves: one wave of all of them, or, when the run's network sends segment
// by segment (Network::per_segment()), one wave per side of each axis the exchange crosses, in
// the order split_shell cuts the shell (x low, x high, y low, ...). A segment belongs to the wave
// of the first such axis it crosses, on its side: both ranks of a message agree on its wave
// from its direction alone, whatever their blocks. The buffers hold the waves one after another.
class HaloExchange {
 public:
  HaloExchange(const Decomposition& dec, const Layout& layout, const Exec& ex, bool corners = true,
               Int3 filled = {0, 0, 0});

  // Blocking exchange: on return every halo cell with an owner holds the owner's value (for work
  // queued after it on either lane).
  void exchange(const std::vector<Field*>& fields);

  // The same in two halves, to hide communication behind computation: begin() packs the segments
  // (and stages them to the host for MPI) on the boundary lane, without waiting; work queued next
  // on the inner lane overlaps the transfer that end() performs before it unpacks. The caller
  // orders whatever produced the sent values before begin() (e.g. computes them on the boundary
  // lane).
  void begin(const std::vector<Field*>& fields);
  void end(const std::vector<Field*>& fields);
  // begin() one wave at a time, waves in order (wave 0 first): packs that wave's segments and
  // starts their messages. The caller orders what produced the wave's sent values before it.
  void begin_wave(const std::vector<Field*>& fields, int wave);
  int waves() const { return waves_; }
  // The local regions wave `wave`'s segments send.
  std::vector<Region> wave_sends(int wave) const;

  // Local regions one segment sends (interior slab) and receives (halo slab) in direction `dir`.
  static Region send_region(const Layout& layout, Int3 dir);
  static Region recv_region(const Layout& layout, Int3 dir);
  int segments() const { return static_cast<int>(segs_.size()); }
  // True if some segment goes to another rank (otherwise all is local copies: nothing to hide).
  bool remote() const { return remote_; }
  // 1 along the axes whose boundary shell begin()/end() need computed first: those some segment
  // crosses, except filled axes (every segment left also crosses an axis that is not filled, and
  // its send region lies in that axis's shell).
  Int3 axes() const;
  const Layout& layout() const { return layout_; }
  TransportKind transport() const { return transport_->kind(); }

 private:
  struct Segment {
    Int3 dir;
    int peer;
    int opposite;  // index of the segment in direction -dir
    Region send, recv;
    std::size_t offset;  // cells into the buffers, per field
    int wave;
  };
  // The wave of the segment in direction d (its message's wave on both sides).
  int wave_of(Int3 d) const;
  // Segments [first, last) of wave `wave` (contiguous: ordered by wave).
  std::pair<std::size_t, std::size_t> wave_range(int wave) const;
  void prepare(std::size_t fields);
  void pack(const std::vector<Field*>& fields, int wave);
  void unpack(const std::vector<Field*>& fields);
  // Whether all slabs of `fields` fields fit one launch (else one launch per slab).
  bool one_launch(std::size_t fields) const;
  // The slabs of segments [first, last) for one launch, their offsets from the first one's.
  template <class F>
  F slabs(const std::vector<Field*>& fields, bool send, std::size_t first, std::size_t last) const;
  // Where the values for our halo segment s of `field` lie (the receive buffer, or our own send
  // buffer for a periodic exchange with ourselves).
  const real* source(const Segment& s, std::size_t field) const;
  std::size_t at(const Segment& s, std::size_t field) const {
    return s.offset * nfields_ + field * static_cast<std::size_t>(s.send.size());
  }
  long long open(Phase phase);
  void close(long long span);

  const Decomposition& dec_;
  Layout layout_;
  Exec ex_;
  Int3 filled_;
  std::vector<Segment> segs_;
  int waves_ = 1;
  Int3 crossed_;  // the axes() of the segments, which waves are cut by
  std::size_t cells_per_field_ = 0;
  bool remote_ = false;       // some segment goes to another rank (else all is local copies)
  std::size_t nfields_ = 0;   // fields the buffers and the plan are laid out for
  Buffer<real> send_, recv_;  // in the backend's memory
  MessagePlan plan_;
  std::unique_ptr<Transport> transport_;
  long long transfer_span_ = -1;
};

}  // namespace staghorn
