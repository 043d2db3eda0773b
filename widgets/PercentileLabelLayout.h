// Where one plot band's percentile annotations go: each guide's name ("p50") on its guide, and
// each channel's value near the dot where its CDF crosses the guide. Plain geometry, so the
// rule is one place: nothing over a dot, a name or another label while the band has room, and
// every value placed even when it has not.
#pragma once

#include <QPointF>
#include <QRectF>
#include <QVector>

class PercentileLabelLayout {
public:
    struct Guide {
        double y = 0;        // the guide's height in the band
        double width = 0;    // of its name's box
    };
    struct Value {
        int guide = 0;       // index into the guides
        QPointF anchor;      // the dot
        double width = 0;    // of its label's box
    };
    struct Placed {
        QVector<QRectF> guides;   // parallel to the guides given
        QVector<QRectF> values;   // parallel to the values given
    };

    // Boxes `rowHeight` tall, in whole pixels, inside `band`.
    static Placed place(const QRectF& band, double rowHeight, const QVector<Guide>& guides, const QVector<Value>& values);
};
