#include "widgets/PercentileLabelLayout.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

PercentileLabelLayout::Placed PercentileLabelLayout::place(const QRectF& r, double th, const QVector<Guide>& guides,
                                                           const QVector<Value>& values)
{
    Placed out;
    // Row 0 is centred on the guide (kept inside the band); rows -1, 1... above and below it.
    auto rowTop = [&](double guideY, int row) {
        const double centre = std::clamp(guideY, r.top() + th / 2, r.bottom() - th / 2);
        return std::floor(centre - th / 2) + row * (th + 2);
    };
    // Nothing is placed over a crossing's dot.
    QVector<QRectF> taken;
    for (const Value& v : values)
        taken.append(QRectF(v.anchor - QPointF(4, 4), QSizeF(8, 8)));
    // Each guide's name on the guide at its left end, or at its right end when a dot lies under
    // the left one.
    for (int g = 0; g < guides.size(); ++g) {
        QRectF rect(std::floor(r.left() + 3), rowTop(guides[g].y, 0), guides[g].width, th);
        for (const Value& v : values)
            if (v.guide == g && v.anchor.x() < rect.right() + 6)
                rect.moveLeft(std::floor(r.right() - 3 - guides[g].width));
        taken.append(rect);
        out.guides.append(rect);
    }
    auto fits = [&](const QRectF& rect) {
        if (!r.contains(rect))
            return false;
        for (const QRectF& t : taken)
            if (t.intersects(rect))
                return false;
        return true;
    };
    // The free place in a row nearest to `left`.
    auto placeInRow = [&](double left, double top, double tw) -> std::optional<QRectF> {
        QVector<double> lefts{left};
        for (const QRectF& t : taken)
            if (t.top() < top + th && t.bottom() > top)
                lefts << t.right() + 2 << t.left() - 2 - tw;
        std::sort(lefts.begin(), lefts.end(), [&](double a, double b) { return std::abs(a - left) < std::abs(b - left); });
        for (double l : lefts) {
            const QRectF rect(std::floor(std::clamp(l, r.left(), r.right() - tw)), top, tw, th);
            if (fits(rect))
                return rect;
        }
        return std::nullopt;
    };
    // Each value in the free place nearest its dot, centred over or under it: in the rows just
    // above and below its guide, beside the dot on the guide, or further out; guide by guide,
    // left to right, so that the labels of one guide read in the order of their dots.
    QVector<int> order(values.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        return values[a].guide != values[b].guide ? values[a].guide < values[b].guide : values[a].anchor.x() < values[b].anchor.x();
    });
    out.values.resize(values.size());
    for (int i : order) {
        const Value& v = values[i];
        const QPointF want(v.anchor.x() - v.width / 2, v.anchor.y() - th / 2);
        auto cost = [&](const QRectF& rect) { return std::abs(rect.left() - want.x()) + std::abs(rect.top() - want.y()); };
        std::optional<QRectF> rect;
        for (int row : {-1, 1, 0, -2, 2, -3, 3, -4, 4})
            if (const auto place = placeInRow(want.x(), rowTop(v.anchor.y(), row), v.width); place && (!rect || cost(*place) < cost(*rect)))
                rect = place;
        // A band too small for every label apart still shows every value.
        if (!rect)
            rect = QRectF(std::floor(std::clamp(want.x(), r.left(), std::max(r.left(), r.right() - v.width))), rowTop(v.anchor.y(), 0),
                          v.width, th);
        taken.append(*rect);
        out.values[i] = *rect;
    }
    return out;
}
